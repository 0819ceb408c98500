import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { APPLICATION_UPDATE_READ_ONLY } from '../src/http/application-fields';
import { updateApplication, type Body } from '../src/services/applications';
import validateApplicationUpdate from '../src/schemas/generated/validate-application-update';

const body = bodyValidator<Body>(validateApplicationUpdate, { ignore: APPLICATION_UPDATE_READ_ONLY });

export const handler = apiHandler({ route: 'update-application', body }, (req) =>
  updateApplication(req.auth.businessId, req.params.id ?? '', req.body, req.fieldErrors, req.headers['if-match']),
);
