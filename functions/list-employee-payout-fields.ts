import { listReferenceHandler } from '../src/http/reference-handlers';

export const handler = listReferenceHandler('list-employee-payout-fields', 'payout_field');
