import { showReferenceHandler } from '../src/http/reference-handlers';

export const handler = showReferenceHandler('get-location', 'location');
