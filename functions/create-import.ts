import { apiHandler } from '../src/http/handler';
import { importWriteCheck } from '../src/http/import-access';
import { languageOf } from '../src/http/i18n/language';
import { bodyValidator } from '../src/http/validation';
import { createImport, type ImportRequest } from '../src/services/imports';
import validateImportCreate from '../src/schemas/generated/validate-import-create';

const body = bodyValidator<ImportRequest>(validateImportCreate, { ignore: ['id', 'status', 'created_at'] });

export const handler = apiHandler({ route: 'create-import', body }, async (req) => {
  req.fieldErrors.throwIfAny();
  const { context } = req;
  // The write scope of the type named (the route admitted either one).
  (await importWriteCheck(context.auth))(req.body.type);
  const { actor, request_id } = context.origin();
  return createImport(
    context.businessId,
    { ...req.body, mode: req.body.mode ?? 'apply' },
    context.idempotency(req.body),
    {
      tokenId: actor.type === 'token' ? actor.token_id : '',
      tokenName: actor.type === 'token' ? actor.token_name : '',
      ...(context.auth.tokenHash !== undefined ? { tokenHash: context.auth.tokenHash } : {}),
      requestId: request_id,
      language: languageOf(req.headers),
    },
  );
});
