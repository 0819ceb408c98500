/**
 * Error bodies stay small whatever a client sends (contract §2): messages quote
 * at most 100 characters of a client's value, and a field-error map reports at
 * most 100 fields, so no error body reaches 64 KiB (1 MB of unknown keys would
 * otherwise come back as a 2 MB 422).
 */
import { MESSAGES, type FieldMessages } from './errors';
import { clip } from './quote';

/** Fields one field-error body reports at most. */
export const MAX_REPORTED_FIELDS = 100;
/** Serialized size a field-error body stays within, escapes and all: well under 64 KiB. */
const FIELD_ERRORS_BUDGET_BYTES = 48 * 1024;

/**
 * The field map a client sees: every field name clipped like a quoted value,
 * at most 100 fields and 48 KiB, the fields of the resource before unknown
 * keys (so a flood of unknown keys cannot hide a missing mandatory field).
 */
export function boundFieldErrors(fields: FieldMessages): FieldMessages {
  const entries = Object.entries(fields);
  const unknownOnly = ([, messages]: [string, string[]]): boolean =>
    messages.length === 1 && messages[0] === MESSAGES.unknownField;
  const ordered = [...entries.filter((e) => !unknownOnly(e)), ...entries.filter(unknownOnly)];
  const out: FieldMessages = Object.create(null) as FieldMessages;
  let count = 0;
  let bytes = 2;
  for (const [field, messages] of ordered) {
    const name = clip(field);
    // An upper bound of what this entry adds to the JSON body (a clipped name may merge into an earlier one).
    const size = Buffer.byteLength(JSON.stringify({ [name]: messages })) + 1;
    if (count >= MAX_REPORTED_FIELDS || bytes + size > FIELD_ERRORS_BUDGET_BYTES) break;
    count += 1;
    bytes += size;
    const list = (out[name] ??= []);
    for (const message of messages) if (!list.includes(message)) list.push(message);
  }
  return out;
}
