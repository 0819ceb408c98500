import { listReferenceHandler } from '../src/http/reference-handlers';

export const handler = listReferenceHandler('list-application-fields', 'application_field');
