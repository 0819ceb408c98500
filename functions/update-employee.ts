import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { EMPLOYEE_READ_ONLY } from '../src/http/employee-fields';
import { updateEmployee, type Body } from '../src/services/employees';
import validateEmployeeUpdate from '../src/schemas/generated/validate-employee-update';

const body = bodyValidator<Body>(validateEmployeeUpdate, { ignore: EMPLOYEE_READ_ONLY });

export const handler = apiHandler({ route: 'update-employee', body }, (req) =>
  updateEmployee(req.auth.businessId, req.params.id ?? '', req.body, req.fieldErrors, req.headers['if-match']),
);
