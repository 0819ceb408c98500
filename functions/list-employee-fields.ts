import { listReferenceHandler } from '../src/http/reference-handlers';

export const handler = listReferenceHandler('list-employee-fields', 'employee_field');
