import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { EMPLOYEE_JOB_READ_ONLY } from '../src/http/employee-fields';
import { createEmployeeJob, type Body } from '../src/services/employee-jobs';
import validateEmployeeJobCreate from '../src/schemas/generated/validate-employee-job-create';

const body = bodyValidator<Body>(validateEmployeeJobCreate, { ignore: EMPLOYEE_JOB_READ_ONLY });

export const handler = apiHandler({ route: 'create-employee-job', body }, (req) =>
  createEmployeeJob(req.context, req.body, req.fieldErrors),
);
