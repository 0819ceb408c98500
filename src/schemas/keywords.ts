/**
 * Keyword that marks a mandatory text field: null, '' and whitespace-only are
 * "can't be blank" (Rails' presence check), not "is invalid". Kept apart from
 * ajv itself so the request path never loads the compiler.
 */
export const NOT_BLANK = 'x-not-blank';

/** Annotation listing a resource's read-only fields (ignored when sent in a body). */
export const READ_ONLY_FIELDS = 'x-read-only-fields';

/**
 * Keyword for decimal fields: at most this many digits after the decimal point
 * (contract §2), so every stored number reads back the same and none is too
 * small for DynamoDB (1e-200 is invalid, not a 500). Magnitudes are bounded by
 * the standard minimum/maximum keywords beside it.
 */
export const MAX_DECIMALS = 'x-max-decimals';
