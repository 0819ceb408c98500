import { ADMIN_ORIGIN, type WriteOrigin } from '../domain/audit';
import { currentScope, withinScope } from './request-scope';

/**
 * Who the writes of the running operation are made by (contract §20), for the
 * change-feed entries they append (src/data/feed-store.ts). The http layer
 * names the token and request once its auth step has verified the token
 * (before anything else runs); the retention job names
 * itself; anything else (the admin tool, seeding scripts) writes as the admin
 * tool. Kept per operation in its request scope (src/data/request-scope.ts), so
 * concurrent requests of one process never see each other's origin.
 */

/** Runs `fn` with its writes made by `origin` (an API request starts as the admin tool until its token is known). */
export const runWithOrigin = <T>(origin: WriteOrigin, fn: () => T): T => withinScope({ origin: { origin } }, fn);

/** Names who the rest of the running operation writes as (the http layer, once the token is verified). */
export function setWriteOrigin(origin: WriteOrigin): void {
  const holder = currentScope().origin;
  if (holder) holder.origin = origin;
}

export const currentOrigin = (): WriteOrigin => currentScope().origin?.origin ?? ADMIN_ORIGIN;
