import { insufficientScope } from '../domain/errors';
import { READ_SCOPES_OF, WRITE_SCOPE_OF, type ImportType } from '../domain/imports';
import type { Scope } from '../domain/scopes';
import { tokenViewOf, type AuthContext } from './auth';

/**
 * An import's scope depends on its type (contract §22): its route admits a
 * token with any scope of any type (src/http/routes.ts `orScopes`), and these
 * checks refuse one that lacks its type's: the write scope to create or
 * cancel it, the read or the write scope to see it.
 */
const grantedScopes = async (auth: AuthContext): Promise<readonly Scope[]> => (await tokenViewOf(auth)).scopes;

export async function importWriteCheck(auth: AuthContext): Promise<(type: ImportType) => void> {
  const granted = await grantedScopes(auth);
  return (type) => {
    if (!granted.includes(WRITE_SCOPE_OF[type])) throw insufficientScope(WRITE_SCOPE_OF[type]);
  };
}

/** Whether the token may see imports of a type: the read or the write scope of that type. */
export async function importReadable(auth: AuthContext): Promise<(type: ImportType) => boolean> {
  const granted = await grantedScopes(auth);
  return (type) => READ_SCOPES_OF[type].some((s) => granted.includes(s));
}

export async function importReadCheck(auth: AuthContext): Promise<(type: ImportType) => void> {
  const readable = await importReadable(auth);
  return (type) => {
    if (!readable(type)) throw insufficientScope(READ_SCOPES_OF[type].join(' '));
  };
}
