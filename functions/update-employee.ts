import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { EMPLOYEE_READ_ONLY, EmployeeUpdate } from '../src/schemas/employees';
import { updateEmployee, type Body } from '../src/services/employees';

const body = bodyValidator<Body>(EmployeeUpdate, { ignore: EMPLOYEE_READ_ONLY });

export const handler = apiHandler({ route: 'update-employee', body }, (req) =>
  updateEmployee(req.auth.businessId, req.params.id ?? '', req.body, req.fieldErrors, req.headers['if-match']),
);
