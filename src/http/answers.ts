/** The answers and errors functions/ build themselves (the docs, the document, the fallback route). */
export { ok } from '../domain/result';
export { methodNotAllowed, routeNotFound } from '../domain/errors';
