import { insufficientScope } from '../domain/errors';
import { scopesFor, type ExportType } from '../domain/exports';
import type { AuthContext } from './auth';

/**
 * Contract §20: an export needs the read scope of every type it names (its
 * route's own scope, changes:read, is checked already by the auth step).
 */
export function exportReadCheck(auth: AuthContext, types: readonly ExportType[]): () => Promise<void> {
  return async () => {
    const granted = auth.scopes ?? [];
    const missing = scopesFor(types).find((s) => !granted.includes(s));
    if (missing) throw insufficientScope(missing);
  };
}

export type { ExportType };
