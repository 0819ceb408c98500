/** What an employee or job body may carry but the API sets itself (ignored on write), for functions/. */
export { EMPLOYEE_JOB_READ_ONLY, EMPLOYEE_READ_ONLY } from '../schemas/employees';
