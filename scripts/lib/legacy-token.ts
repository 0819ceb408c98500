import { randomBytes } from 'node:crypto';
import { storeToken, type IssueOptions } from '../../src/data/token-store';

/**
 * A token of the format issued before tokens named their business (`hr_` + 43
 * characters): still accepted, read on its own before the request's data. For
 * the benchmark and the tests that compare both formats.
 */
export async function createLegacyToken(businessId: string, options: IssueOptions = {}): Promise<string> {
  return (await storeToken(`hr_${randomBytes(32).toString('base64url')}`, businessId, options)).token;
}
