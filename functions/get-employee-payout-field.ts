import { showReferenceHandler } from '../src/http/reference-handlers';

export const handler = showReferenceHandler('get-employee-payout-field', 'payout_field');
