import { apiHandler } from '../src/http/handler';
import { tokenViewOf } from '../src/http/auth';
import { queryCollector } from '../src/http/validation';
import { ok } from '../src/http/answers';
import { listChanges, type ChangesQuery } from '../src/services/changes';
import validateChangesQuery from '../src/schemas/generated/validate-changes-query';

// The cursor is checked against the business by the service; schema errors join its errors in one 400.
const query = queryCollector<ChangesQuery>(validateChangesQuery);

export const handler = apiHandler({ route: 'list-changes' }, async (req) => {
  const { query: q, errors } = query(req.rawQuery);
  return ok(await listChanges(req.auth.businessId, q, errors, tokenViewOf(req.auth)));
});
