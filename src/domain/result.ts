/** What a handler returns; the middleware adds the common headers and serializes. */
export interface ApiResult {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export const ok = (body: unknown, headers: Record<string, string> = {}): ApiResult => ({ status: 200, body, headers });

export const created = (body: unknown, location: string, headers: Record<string, string> = {}): ApiResult => ({
  status: 201,
  body,
  headers: { Location: location, ...headers },
});

/** 204: done, nothing to say (an empty body). */
export const noContent = (): ApiResult => ({ status: 204, body: '' });

/** A strong ETag from a record's id and its write version; changes with every write. */
export const etagOf = (id: string, version: number): string =>
  `"${Buffer.from(`${id}:${version}`).toString('base64url')}"`;

/** RFC 9110 If-Match: `*` or a list of strong ETags; a weak tag never matches. */
export function ifMatchAllows(header: string, current: string): boolean {
  return header
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t === current);
}
