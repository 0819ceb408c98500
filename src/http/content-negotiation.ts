import Negotiator from 'negotiator';
import { notAcceptable } from '../domain/errors';

/** Throws 406 unless the request's `Accept` allows `mediaType` (no header = anything goes). */
export function requireAcceptable(headers: Record<string, string | undefined>, mediaType: string): void {
  const accept = headers.accept;
  if (!accept) return;
  if (!new Negotiator({ headers: { accept } }).mediaType([mediaType])) throw notAcceptable(mediaType);
}
