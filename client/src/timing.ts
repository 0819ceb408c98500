/** When to try again (contract §23): pure functions of the answer's headers, the attempt and a random number. */

/** The longest `Retry-After` the client honours; a longer one is waited for this long, then retried. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** The longest back-off without `Retry-After`. */
export const MAX_BACKOFF_MS = 8_000;

/** Statuses worth another attempt: the limit, and a gateway or the service that could not answer this time. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** `Retry-After` in seconds (delay-seconds or an HTTP date, RFC 9110 §10.2.3), else null. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** 0.5 s·2ⁿ, jittered by ±25 %, at most 8 s; `random` in [0, 1). */
export function backoffMs(attempt: number, random: number): number {
  return Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt * (0.75 + random / 2));
}

/** The wait before the next attempt: the answer's `Retry-After` (at most 60 s), else the back-off. */
export function retryWaitMs(retryAfterSeconds: number | null, attempt: number, random: number): number {
  return retryAfterSeconds === null
    ? backoffMs(attempt, random)
    : Math.min(MAX_RETRY_AFTER_MS, retryAfterSeconds * 1000);
}

/**
 * The wait the `RateLimit` field asks of the next request (draft-ietf-httpapi-ratelimit-headers): the longest `t`
 * of the policies with `r=0`, in ms (at most 60 s), else 0. `"token";r=0;t=2, "business";r=5;t=1` -> 2000.
 */
export function rateLimitWaitMs(field: string | null): number {
  if (!field) return 0;
  let wait = 0;
  for (const item of field.split(',')) {
    const params = new Map(
      item
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('=') as [string, string | undefined]),
    );
    const t = Number(params.get('t'));
    if (params.get('r') === '0' && Number.isFinite(t)) wait = Math.max(wait, t * 1000);
  }
  return Math.min(MAX_RETRY_AFTER_MS, wait);
}
