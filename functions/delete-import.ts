import { apiHandler } from '../src/http/handler';
import { importWriteCheck } from '../src/http/import-access';
import { cancelImport } from '../src/services/imports';

export const handler = apiHandler({ route: 'delete-import' }, async (req) =>
  cancelImport(req.auth.businessId, req.params.id ?? '', await importWriteCheck(req.auth)),
);
