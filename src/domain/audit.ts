/**
 * Who made a change and what it changed (contract §20): the audit fields of
 * every change-feed entry and webhook delivery. Pure: the actor as clients
 * read it, its compact stored form, and the names of the fields an update
 * changed.
 */
import stableStringify from 'fast-json-stable-stringify';

/**
 * The jobs that write on their own: retention (contract §17), the check of uploaded attachments (§19) and the
 * effective-date run (§26).
 */
export const SYSTEM_JOBS = ['retention', 'attachment_check', 'effective_date'] as const;
export type SystemJob = (typeof SYSTEM_JOBS)[number];

/** Who made a write: an API token, a system job, or the admin tool. */
export type Actor =
  | { readonly type: 'token'; readonly token_id: string; readonly token_name: string }
  | { readonly type: 'system'; readonly name: SystemJob }
  | { readonly type: 'admin' }
  /** A bulk import (contract §22), on behalf of the token that created it. */
  | { readonly type: 'import'; readonly import_id: string; readonly token_id: string; readonly token_name: string };

/** Who made a write and the request it answered (null outside an API request). */
export interface WriteOrigin {
  readonly actor: Actor;
  readonly request_id: string | null;
}

export const ADMIN_ORIGIN: WriteOrigin = { actor: { type: 'admin' }, request_id: null };
export const RETENTION_ORIGIN: WriteOrigin = { actor: { type: 'system', name: 'retention' }, request_id: null };
export const EFFECTIVE_DATE_ORIGIN: WriteOrigin = {
  actor: { type: 'system', name: 'effective_date' },
  request_id: null,
};
export const ATTACHMENT_CHECK_ORIGIN: WriteOrigin = {
  actor: { type: 'system', name: 'attachment_check' },
  request_id: null,
};

/**
 * The stored form of an actor: `t<token id>:<name>` (the token id is the fixed-length hex hash prefix, so
 * the first colon after it ends it), `i<import id>:<token id>:<name>` (import ids hold no colon), `s<name>`,
 * `a`. A few bytes instead of the JSON object on every entry.
 */
export function encodeActor(actor: Actor): string {
  if (actor.type === 'token') return `t${actor.token_id}:${actor.token_name}`;
  if (actor.type === 'import') return `i${actor.import_id}:${actor.token_id}:${actor.token_name}`;
  if (actor.type === 'system') return `s${actor.name}`;
  return 'a';
}

/**
 * The actor of a stored form; entries written before audit fields existed
 * (undefined), like any form this code does not know, read as the admin tool.
 */
export function decodeActor(stored: unknown): Actor {
  if (typeof stored !== 'string' || stored === 'a') return { type: 'admin' };
  if (stored.startsWith('s')) {
    const name = SYSTEM_JOBS.find((job) => job === stored.slice(1));
    return name ? { type: 'system', name } : { type: 'admin' };
  }
  if (stored.startsWith('i')) {
    const [importId, tokenId] = stored.slice(1).split(':', 2);
    if (importId !== undefined && tokenId !== undefined)
      return {
        type: 'import',
        import_id: importId,
        token_id: tokenId,
        token_name: stored.slice(importId.length + tokenId.length + 3),
      };
  }
  const colon = stored.indexOf(':');
  if (!stored.startsWith('t') || colon < 0) return { type: 'admin' };
  return { type: 'token', token_id: stored.slice(1, colon), token_name: stored.slice(colon + 1) };
}

/**
 * Fields every update moves, so naming them says nothing: `updated_at`. The
 * ETag is a header, not a field.
 */
const ALWAYS_CHANGED = new Set(['updated_at']);

/**
 * The sorted names of the fields whose value differs between two views of a
 * record as its GET answers (a field present in one only counts as changed),
 * `updated_at` left out. Values compare as JSON (object key order aside).
 */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names]
    .filter(
      (name) =>
        !ALWAYS_CHANGED.has(name) && stableStringify(before[name] ?? null) !== stableStringify(after[name] ?? null),
    )
    .sort();
}
