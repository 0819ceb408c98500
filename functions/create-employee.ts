import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { EMPLOYEE_READ_ONLY } from '../src/http/employee-fields';
import { createEmployee, type Body } from '../src/services/employees';
import validateEmployeeCreate from '../src/schemas/generated/validate-employee-create';

const body = bodyValidator<Body>(validateEmployeeCreate, { ignore: EMPLOYEE_READ_ONLY });

export const handler = apiHandler({ route: 'create-employee', body }, (req) =>
  createEmployee(req.context, req.body, req.fieldErrors),
);
