import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { createAttachment, type AttachmentBody } from '../src/services/attachments';
import validateAttachmentCreate from '../src/schemas/generated/validate-attachment-create';

const body = bodyValidator<AttachmentBody>(validateAttachmentCreate, {
  ignore: ['id', 'application_id', 'status', 'rejection_reason', 'created_at', 'updated_at', 'upload', 'download_url'],
});

export const handler = apiHandler({ route: 'create-attachment', body }, (req) =>
  createAttachment(req.context, req.params.id ?? '', req.body, req.fieldErrors),
);
