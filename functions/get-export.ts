import { apiHandler } from '../src/http/handler';
import { tokenViewOf } from '../src/http/auth';
import { showExport } from '../src/services/exports';
import '../src/services/export-wiring';

export const handler = apiHandler({ route: 'get-export' }, (req) =>
  showExport(req.auth.businessId, req.params.id ?? '', tokenViewOf(req.auth)),
);
