import { apiHandler } from '../src/http/handler';
import { idempotencyKeyOf } from '../src/http/idempotency-key';
import { importWriteCheck } from '../src/http/import-access';
import { languageOf } from '../src/http/i18n/language';
import { bodyValidator } from '../src/schemas/validation';
import { idempotencyOf } from '../src/data/idempotency';
import { currentOrigin } from '../src/data/write-origin';
import { createImport, type ImportRequest } from '../src/services/imports';
import validateImportCreate from '../src/schemas/generated/validate-import-create';

const body = bodyValidator<ImportRequest>(validateImportCreate, { ignore: ['id', 'status', 'created_at'] });

export const handler = apiHandler({ route: 'create-import', body }, async (req) => {
  req.fieldErrors.throwIfAny();
  const { businessId } = req.auth;
  // The write scope of the type named (the route admitted either one).
  (await importWriteCheck(req.auth))(req.body.type);
  const { actor, request_id } = currentOrigin();
  return createImport(
    businessId,
    { ...req.body, mode: req.body.mode ?? 'apply' },
    idempotencyOf(businessId, idempotencyKeyOf(req.headers), req.body, req),
    {
      tokenId: actor.type === 'token' ? actor.token_id : '',
      tokenName: actor.type === 'token' ? actor.token_name : '',
      ...(req.auth.tokenHash !== undefined ? { tokenHash: req.auth.tokenHash } : {}),
      requestId: request_id,
      language: languageOf(req.headers),
    },
  );
});
