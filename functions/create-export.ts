import { apiHandler } from '../src/http/handler';
import { idempotencyKeyOf } from '../src/http/idempotency-key';
import { bodyValidator } from '../src/schemas/validation';
import { insufficientScope } from '../src/domain/errors';
import { scopesFor, type ExportType } from '../src/domain/exports';
import { idempotencyOf } from '../src/data/idempotency';
import { startExport } from '../src/services/exports';
import validateExportCreate from '../src/schemas/generated/validate-export-create';
import '../src/services/export-wiring';

const body = bodyValidator<{ types: ExportType[] }>(validateExportCreate, {
  ignore: ['id', 'status', 'created_at'],
});

export const handler = apiHandler({ route: 'create-export', body }, async (req) => {
  req.fieldErrors.throwIfAny();
  const { businessId, scopes } = req.auth;
  return startExport(
    businessId,
    req.body.types,
    idempotencyOf(businessId, idempotencyKeyOf(req.headers), req.body, req),
    async () => {
      // Contract §20: the read scope of every type named (the route's own, changes:read, is checked already).
      const granted = scopes ?? [];
      const missing = scopesFor(req.body.types).find((s) => !granted.includes(s));
      if (missing) throw insufficientScope(missing);
    },
    req.auth.grants,
  );
});
