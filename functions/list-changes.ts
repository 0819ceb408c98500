import { apiHandler } from '../src/http/handler';
import { queryValidator } from '../src/http/validation';
import { ok } from '../src/domain/result';
import { listChanges, type ChangesQuery } from '../src/services/changes';
import validateChangesQuery from '../src/schemas/generated/validate-changes-query';

const query = queryValidator<ChangesQuery>(validateChangesQuery);

export const handler = apiHandler({ route: 'list-changes', query }, async (req) =>
  ok(await listChanges(req.auth.businessId, req.query)),
);
