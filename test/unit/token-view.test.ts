import fc from 'fast-check';
import { etagOf, ok } from '../../src/domain/result';
import { GRANT_TYPES, ALWAYS_GRANTED, seesAllOf, type GrantType, type TokenView } from '../../src/domain/token-view';
import { SCOPES } from '../../src/domain/scopes';
import {
  checkFilters,
  deniedBodyFields,
  projectExportRecord,
  projectFeedEntry,
  projectResult,
  TYPE_FIELDS,
} from '../../src/services/token-view';

/**
 * Contract §25, the projection step on its own: for any grant and any record,
 * what the token receives holds no withheld key, names exactly what it withheld,
 * and its ETag does not depend on a withheld value.
 */

const CUSTOM = ['cf_1', 'cf_2', 'cf_30'];
const FEED_TYPE: Record<GrantType, string> = {
  employees: 'employee.updated',
  employee_jobs: 'employee_job.created',
  applications: 'application.updated',
};

const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));

/** A grant type, a grant of it (any subset of its fields, custom ones included) and a record of it. */
const case_ = fc.constantFrom(...GRANT_TYPES).chain((type) => {
  const fields = [...TYPE_FIELDS[type], ...CUSTOM];
  return fc.record({
    type: fc.constant(type),
    granted: fc.subarray(fields),
    record: fc.record(Object.fromEntries(fields.map((f) => [f, value])), { requiredKeys: [] }),
    other: fc.record(Object.fromEntries(fields.map((f) => [f, value])), { requiredKeys: [] }),
    version: fc.nat({ max: 1000 }),
  });
});

const viewOf = (type: GrantType, granted: readonly string[]): TokenView => ({
  scopes: SCOPES,
  grants: { [type]: granted },
});

const allowed = (type: GrantType, granted: readonly string[], field: string): boolean =>
  granted.includes(field) || ALWAYS_GRANTED[type].includes(field);

describe('the projection step (contract §25)', () => {
  test('no withheld key reaches the token, and Restricted-Fields names exactly what was withheld', () => {
    fc.assert(
      fc.property(case_, ({ type, granted, record }) => {
        const view = viewOf(type, granted);
        // Each check collects what breaks it and expects none, one comparison per check and run (an expect per key
        // made jest's matchers most of this property's CPU); a failure names the keys.
        const withheld = (keys: readonly string[]): string[] => keys.filter((key) => !allowed(type, granted, key));
        const one = projectResult(view, type, false, ok(record));
        const body = one.body as Record<string, unknown>;
        expect(withheld(Object.keys(body))).toEqual([]);
        // Granted keys keep their value: a withheld field is absent, a granted null stays null.
        const kept = Object.keys(record).filter((key) => allowed(type, granted, key));
        expect(kept.map((key) => [key, body[key]])).toEqual(kept.map((key) => [key, record[key]]));
        const restricted = (one.headers?.['Restricted-Fields'] ?? '').split(', ').filter(Boolean);
        expect(restricted).toEqual([...restricted].sort());
        // A grant that withholds nothing names nothing: no empty header.
        if (restricted.length === 0) expect(one.headers?.['Restricted-Fields']).toBeUndefined();
        const fields = [...TYPE_FIELDS[type], ...Object.keys(record)];
        expect(fields.filter((f) => restricted.includes(f) === allowed(type, granted, f))).toEqual([]);

        const page = projectResult(view, type, true, ok({ entries: [record, record], total_entries: 2 }));
        const entries = (page.body as { entries: Record<string, unknown>[] }).entries;
        expect(withheld(entries.flatMap((e) => Object.keys(e)))).toEqual([]);

        const entry = projectFeedEntry(view, {
          type: FEED_TYPE[type],
          data: record,
          changed_fields: Object.keys(record).sort(),
        });
        expect(withheld(Object.keys(entry.data as object))).toEqual([]);
        expect(withheld(entry.changed_fields ?? [])).toEqual([]);
        expect(entry.restricted_fields).toEqual(restricted);

        const line = projectExportRecord(view, type, record);
        expect(withheld(Object.keys(line.data))).toEqual([]);
        expect(line.restricted_fields).toEqual(withheldOver(type, granted, record));
      }),
    );
  });

  test('two states that differ only in withheld fields look alike to the token, ETag included', () => {
    fc.assert(
      fc.property(case_, ({ type, granted, record, other, version }) => {
        const view = viewOf(type, granted);
        // Two states of one record: `b` differs from `a` in withheld fields only.
        const keys = [...new Set([...TYPE_FIELDS[type], ...CUSTOM])];
        const a = Object.fromEntries(keys.map((k) => [k, record[k] ?? null]));
        const b = Object.fromEntries(keys.map((k) => [k, allowed(type, granted, k) ? a[k] : (other[k] ?? 'other')]));
        // The service's ETag is the record's id and write version (src/domain/result.ts), never a field value.
        const answer = (r: Record<string, unknown>) =>
          projectResult(view, type, false, ok({ ...r, id: 'r1' }, { ETag: etagOf('r1', version) }));
        expect(answer(b)).toEqual(answer(a));
      }),
    );
  });

  test('a token without a grant is answered exactly as before: no header, every field', () => {
    fc.assert(
      fc.property(case_, ({ type, record }) => {
        const view: TokenView = { scopes: SCOPES };
        const result = ok(record, { ETag: '"x"' });
        expect(projectResult(view, type, false, result)).toBe(result);
        const entry = { type: FEED_TYPE[type], data: record };
        expect(projectFeedEntry(view, entry)).toBe(entry);
        expect(projectExportRecord(view, type, record)).toEqual({ data: record });
      }),
    );
  });

  test('bodies and filters naming a withheld field are refused; a create needs its mandatory fields granted', () => {
    const view = viewOf('applications', ['first_name', 'last_name', 'email']);
    expect(deniedBodyFields(view, 'applications', { first_name: 'A', phone: '1' }, false)).toEqual(['phone']);
    expect(deniedBodyFields(view, 'applications', { first_name: 'A', id: 'x' }, false)).toEqual([]);
    expect(deniedBodyFields(view, 'applications', { first_name: 'A' }, true)).toEqual(['accept_terms_and_conditions']);
    expect(() => checkFilters(view, 'applications', { job_id: 'x', page: '2' })).toThrow(
      expect.objectContaining({ status: 400, fields: { job_id: ['is not permitted'] } }),
    );
    expect(() => checkFilters(view, 'applications', { updated_at_since: '2026-01-01', per_page: '5' })).not.toThrow();
    expect(deniedBodyFields({ scopes: SCOPES }, 'employees', { iban: 'x' }, true)).toEqual([]);
  });
});

test('a grant of every field answers as no grant does: nothing withheld, no Restricted-Fields', () => {
  const record = { id: 'e1', first_name: 'Anna', iban: 'DE89370400440532013000' };
  const every = viewOf('employees', TYPE_FIELDS.employees);
  const answer = projectResult(every, 'employees', false, ok(record));
  expect(answer.body).toEqual(record);
  expect(answer.headers?.['Restricted-Fields']).toBeUndefined();
});

function withheldOver(type: GrantType, granted: readonly string[], record: Record<string, unknown>): string[] {
  return [...new Set([...TYPE_FIELDS[type], ...Object.keys(record)])].filter((f) => !allowed(type, granted, f)).sort();
}

test("a token sees all of an export only if its grant withholds nothing the export's grant showed", () => {
  const narrow: TokenView = { scopes: SCOPES, grants: { employees: ['first_name'] } };
  expect(seesAllOf(narrow, undefined, 'employees')).toBe(false);
  expect(seesAllOf(narrow, { employees: ['first_name', 'iban'] }, 'employees')).toBe(false);
  expect(seesAllOf(narrow, { employees: ['first_name', 'id'] }, 'employees')).toBe(true);
  expect(seesAllOf(narrow, undefined, 'applications')).toBe(true);
  expect(seesAllOf({ scopes: SCOPES }, { employees: ['first_name'] }, 'employees')).toBe(true);
});
