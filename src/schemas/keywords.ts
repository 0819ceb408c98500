/**
 * Keyword that marks a mandatory text field: null, '' and whitespace-only are
 * "can't be blank" (Rails' presence check), not "is invalid". Kept apart from
 * ajv itself so the request path never loads the compiler.
 */
export const NOT_BLANK = 'x-not-blank';

/** Annotation listing a resource's read-only fields (ignored when sent in a body). */
export const READ_ONLY_FIELDS = 'x-read-only-fields';
