import { apiHandler } from '../src/http/handler';
import { importWriteCheck } from '../src/http/import-access';
import { languageOf } from '../src/http/i18n/language';
import { bodyValidator } from '../src/http/validation';
import { createImport, importCreatorOf, type ImportRequest } from '../src/services/imports';
import validateImportCreate from '../src/schemas/generated/validate-import-create';

const body = bodyValidator<ImportRequest>(validateImportCreate, { ignore: ['id', 'status', 'created_at'] });

export const handler = apiHandler({ route: 'create-import', body }, async (req) => {
  req.fieldErrors.throwIfAny();
  // The write scope of the type named (the route admitted either one).
  (await importWriteCheck(req.auth))(req.body.type);
  return createImport(req.context, req.body, importCreatorOf(req.context, languageOf(req.headers)));
});
