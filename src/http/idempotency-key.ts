import { badRequest } from '../domain/errors';

/**
 * Contract §11: 1 to 255 printable ASCII characters, no leading or trailing
 * space. The OpenAPI document publishes this same pattern.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e](?:[\\x20-\\x7e]{0,253}[\\x21-\\x7e])?$';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
const pattern = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The Idempotency-Key header, checked; absent = no idempotency. */
export function idempotencyKeyOf(headers: Record<string, string | undefined>): string | undefined {
  const value = headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (!pattern.test(value)) throw badRequest('idempotency_key_invalid');
  return value;
}
