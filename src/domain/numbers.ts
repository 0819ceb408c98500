/**
 * Numbers a client may store (contract §2): every one is finite, DynamoDB can
 * store it, and it reads back as the same JSON number. DynamoDB refuses
 * magnitudes below 1e-130 and the SDK refuses whole numbers beyond 2^53 - 1, so
 * the bounds are the contract's, checked before anything is written.
 */

/** Decimal and currency values: magnitude strictly below this. */
export const MAX_DECIMAL_MAGNITUDE = 1e15;
/** Decimal values (time_hours, time_percentage, time_table, float fields): digits after the point. */
export const MAX_DECIMAL_PLACES = 6;
/** Currency values are stored rounded to this many decimals. */
export const CURRENCY_PLACES = 2;

/**
 * True when `value` is the number a decimal with at most `places` digits after
 * the point parses to: 0.1 and 12.345678 qualify, 1e-7 and 0.1234567 do not.
 */
export function hasAtMostPlaces(value: number, places: number): boolean {
  return Number(value.toFixed(places)) === value;
}

/** A decimal field's value: finite, |value| < 10^15, at most 6 decimals. */
export function isStorableDecimal(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    Math.abs(value) < MAX_DECIMAL_MAGNITUDE &&
    hasAtMostPlaces(value, MAX_DECIMAL_PLACES)
  );
}

/** An integer field's value: a whole number of magnitude at most 2^53 - 1. */
export const isStorableInteger = (value: unknown): value is number => Number.isSafeInteger(value);
