import { apiHandler } from '../src/http/handler';
import { deleteAttachment } from '../src/services/attachments';

export const handler = apiHandler({ route: 'delete-attachment' }, (req) =>
  deleteAttachment(req.auth.businessId, req.params.id ?? '', req.params.attachment_id ?? ''),
);
