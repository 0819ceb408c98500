import { apiHandler } from '../src/http/handler';
import { exportReadCheck, type ExportType } from '../src/http/export-access';
import { bodyValidator } from '../src/http/validation';
import { startExport } from '../src/services/exports';
import validateExportCreate from '../src/schemas/generated/validate-export-create';
import '../src/services/export-wiring';

const body = bodyValidator<{ types: ExportType[] }>(validateExportCreate, {
  ignore: ['id', 'status', 'created_at'],
});

export const handler = apiHandler({ route: 'create-export', body }, async (req) => {
  req.fieldErrors.throwIfAny();
  return startExport(req.context, req.body, exportReadCheck(req.auth, req.body.types));
});
