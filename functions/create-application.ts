import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { APPLICATION_READ_ONLY } from '../src/http/application-fields';
import { createApplication, type Body } from '../src/services/applications';
import validateApplicationCreate from '../src/schemas/generated/validate-application-create';

const body = bodyValidator<Body>(validateApplicationCreate, { ignore: APPLICATION_READ_ONLY });

export const handler = apiHandler({ route: 'create-application', body }, (req) =>
  createApplication(req.context, req.body, req.fieldErrors),
);
