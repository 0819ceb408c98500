import { apiHandler } from '../src/http/handler';
import { importReadCheck } from '../src/http/import-access';
import { showImport } from '../src/services/imports';

export const handler = apiHandler({ route: 'get-import' }, async (req) =>
  showImport(req.auth.businessId, req.params.id ?? '', await importReadCheck(req.auth)),
);
