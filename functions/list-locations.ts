import { listReferenceHandler } from '../src/http/reference-handlers';

export const handler = listReferenceHandler('list-locations', 'location');
