import { listReferenceHandler } from '../src/http/reference-handlers';

export const handler = listReferenceHandler('list-employee-job-fields', 'employee_job_field');
