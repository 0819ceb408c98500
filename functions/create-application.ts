import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { APPLICATION_READ_ONLY, ApplicationCreate } from '../src/schemas/applications';
import { createApplication, type Body } from '../src/services/applications';

const body = bodyValidator<Body>(ApplicationCreate, { ignore: APPLICATION_READ_ONLY });

export const handler = apiHandler({ route: 'create-application', body }, (req) =>
  createApplication(req.auth.businessId, req.body, req.fieldErrors, req.headers),
);
