import { apiHandler } from '../src/http/handler';
import { showAttachment } from '../src/services/attachments';

export const handler = apiHandler({ route: 'get-attachment' }, (req) =>
  showAttachment(req.auth.businessId, req.params.id ?? '', req.params.attachment_id ?? ''),
);
