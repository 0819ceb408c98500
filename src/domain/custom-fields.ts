/**
 * Custom field values (contract §9): the `cf_{id}` keys of employees, jobs
 * and applications, checked against the business's definitions.
 */
import { MESSAGES } from './errors';
import { isDate, parseTimestamp } from './formats';
import { isStorableDecimal, isStorableInteger, MAX_DECIMAL_MAGNITUDE } from './numbers';

export type CustomFieldType =
  | 'text'
  | 'currency'
  | 'integer'
  | 'float'
  | 'select_single'
  | 'select_multiple'
  | 'select_radio'
  | 'checkbox'
  | 'date'
  | 'datetime';

export const CUSTOM_FIELD_TYPES: readonly CustomFieldType[] = [
  'text',
  'currency',
  'integer',
  'float',
  'select_single',
  'select_multiple',
  'select_radio',
  'checkbox',
  'date',
  'datetime',
];

/** One option of a select field: its id and `label_{locale}` texts. */
export interface FieldValueOption {
  id: string;
  [label: string]: string | null;
}

export interface CustomFieldDefinition {
  /** Numeric string. */
  id: string;
  type_of: CustomFieldType;
  required: boolean;
  /** The options of the select types; null otherwise. */
  values: FieldValueOption[] | null;
  /** accessor, name_{locale}, hint_{locale}, placeholder_{locale}. */
  [localized: string]: unknown;
}

export const accessorOf = (id: string): string => `cf_${id}`;

/** A key of the custom field form; whether a definition exists for it is another question. */
export function isCustomKey(key: string): boolean {
  return /^cf_\d+$/.test(key);
}

export const CUSTOM_FIELD_MESSAGES = {
  invalid: MESSAGES.invalid,
  inclusion: MESSAGES.inclusion,
  blank: MESSAGES.blank,
  unknown: MESSAGES.unknownField,
} as const;

export const MAX_TEXT_LENGTH = 10_000;

type Coerced = { ok: true; value: unknown } | { ok: false; message: string };

const invalid: Coerced = { ok: false, message: CUSTOM_FIELD_MESSAGES.invalid };
const notIncluded: Coerced = { ok: false, message: CUSTOM_FIELD_MESSAGES.inclusion };
const accept = (value: unknown): Coerced => ({ ok: true, value });

/**
 * `value` times 10^places, by editing the decimal exponent of its shortest
 * round-trip text instead of multiplying: 1.005 * 100 is 100.49999999999999,
 * while Number('1.005e2') is exactly 100.5, so the decimal the client wrote is
 * what gets rounded.
 */
function shiftDecimal(value: number, places: number): number {
  const [mantissa, exponent = '0'] = String(value).split('e');
  return Number(`${mantissa}e${Number(exponent) + places}`);
}

/** Rounded to cents, half away from zero, as the decimal written (1.005 -> 1.01, -2.675 -> -2.68). */
export function roundCurrency(value: number): number {
  // From 2^52 on, a double has no fractional digits to round away.
  if (Math.abs(value) >= 2 ** 52) return value;
  const cents = Math.round(shiftDecimal(Math.abs(value), 2));
  const rounded = shiftDecimal(cents, -2);
  // `|| 0` turns -0 (e.g. -0.001) into 0, which is what JSON would show anyway.
  return (value < 0 ? -rounded : rounded) || 0;
}

const optionIds = (def: CustomFieldDefinition): Set<string> => new Set((def.values ?? []).map((v) => v.id));

/** Length in characters as a person counts them: an emoji is one, not two UTF-16 units. */
function characterCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const pairsWithPrevious = unit >= 0xdc00 && unit <= 0xdfff && i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800;
    if (!pairsWithPrevious) count += 1;
  }
  return count;
}

/**
 * Checks and normalizes one value for its definition. `null` always passes
 * (it clears the field); whether a required field may be cleared is decided by
 * validateCustomFields. Numbers keep to the bounds of contract §2 (decimals:
 * |x| < 10^15 with at most 6 places; integers: |n| <= 2^53 - 1; currency:
 * |x| < 10^15). Normal forms: currency rounded to cents, datetime as
 * UTC with milliseconds, select_multiple in the order sent.
 */
export function coerceCustomValue(def: CustomFieldDefinition, value: unknown): Coerced {
  if (value === null) return accept(null);
  switch (def.type_of) {
    case 'text':
      // The cheap length check first: no string of at most 10,000 characters has more than 20,000 code units.
      if (typeof value !== 'string' || value.length > 2 * MAX_TEXT_LENGTH || characterCount(value) > MAX_TEXT_LENGTH)
        return invalid;
      return accept(value);
    case 'currency': {
      // Bounds of contract §2, checked on the rounded value too (999999999999999.995 would round up to 10^15).
      if (typeof value !== 'number' || !(Math.abs(value) < MAX_DECIMAL_MAGNITUDE)) return invalid;
      const rounded = roundCurrency(value);
      return Math.abs(rounded) < MAX_DECIMAL_MAGNITUDE ? accept(rounded) : invalid;
    }
    case 'integer':
      return isStorableInteger(value) ? accept(value) : invalid;
    case 'float':
      return isStorableDecimal(value) ? accept(value) : invalid;
    case 'select_single':
    case 'select_radio':
      if (typeof value !== 'string') return invalid;
      return optionIds(def).has(value) ? accept(value) : notIncluded;
    case 'select_multiple': {
      if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) return invalid;
      const ids = optionIds(def);
      if (!value.every((v) => ids.has(v))) return notIncluded;
      // A set of options: a repeated id is a malformed value, not a second choice.
      return new Set(value).size === value.length ? accept([...value]) : invalid;
    }
    case 'checkbox':
      return typeof value === 'boolean' ? accept(value) : invalid;
    case 'date':
      return typeof value === 'string' && isDate(value) ? accept(value) : invalid;
    case 'datetime': {
      // parseTimestamp also takes a bare date (a query convenience); a stored
      // datetime must say its time and offset.
      if (typeof value !== 'string' || !/T/i.test(value)) return invalid;
      const ms = parseTimestamp(value);
      return ms === undefined ? invalid : accept(new Date(ms).toISOString());
    }
    default:
      // A definition of a type this code does not know accepts nothing rather than anything.
      return invalid;
  }
}

/** Rails' `blank?` for the values a custom field can hold. */
const isBlank = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  (typeof value === 'string' && value.trim() === '') ||
  (Array.isArray(value) && value.length === 0);

/**
 * Validates the `cf_{digits}` keys of `input` against the resource's
 * definitions; other keys are left to the caller (the body schema rejects
 * them). Reports every failing key through `report` and returns the
 * normalized values to store, only for the keys sent and valid.
 *
 * Required fields: on create every required definition must end up with a
 * non-blank value (absent counts as blank); on update only keys sent can
 * change, so only a required key sent as blank (null, '', whitespace, []) is
 * "can't be blank".
 */
export function validateCustomFields(
  defs: readonly CustomFieldDefinition[],
  input: Record<string, unknown>,
  mode: 'create' | 'update',
  report: (field: string, message: string) => void,
): Record<string, unknown> {
  const byKey = new Map(defs.map((d) => [accessorOf(d.id), d]));
  const out: Record<string, unknown> = {};

  for (const [key, value] of Object.entries(input)) {
    if (!isCustomKey(key)) continue;
    const def = byKey.get(key);
    if (!def) {
      report(key, CUSTOM_FIELD_MESSAGES.unknown);
      continue;
    }
    if (def.required && isBlank(value)) {
      report(key, CUSTOM_FIELD_MESSAGES.blank);
      continue;
    }
    const result = coerceCustomValue(def, value === undefined ? null : value);
    if (result.ok) out[key] = result.value;
    else report(key, result.message);
  }

  if (mode === 'create') {
    for (const def of defs) {
      const key = accessorOf(def.id);
      if (def.required && !Object.hasOwn(input, key)) report(key, CUSTOM_FIELD_MESSAGES.blank);
    }
  }
  return out;
}

/** Every defined field's accessor with the stored value or null, in definition order. */
export function renderCustomFields(
  defs: readonly CustomFieldDefinition[],
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of defs) {
    const key = accessorOf(def.id);
    out[key] = stored[key] ?? null;
  }
  return out;
}
