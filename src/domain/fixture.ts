import { localized, type BusinessConfig, type Locale, type StoredRatePolicy } from './business';
import { accessorOf, type CustomFieldDefinition } from './custom-fields';
import { buildLocationTree } from './location-tree';
import { isValidTimezone } from './job-dates';

/** Payout types addressed by their own name (seed-api.md, "Payout field types"). */
export const NAMED_PAYOUT_TYPES = [
  'notes',
  'gross',
  'net',
  'complementary_bonus',
  'special_bonus',
  'worked_hours',
  'pay_per_hour',
  'pay_per_hour_gross_total',
  'sickness_hours',
  'accident_hours',
  'overtime_hours',
  'vacation_hours_accumulated_from_previous_year',
  'vacation_hours_yearly',
  'vacation_hours_used',
  'vacation_hours_remaining',
  'vacation_hours_used_in_month',
] as const;

const SELECT_TYPES = new Set(['select_single', 'select_multiple', 'select_radio']);

type Json = Record<string, unknown>;

export interface Fixture {
  business: {
    id: string;
    name: string;
    locales: Locale[];
    timezone: string;
    application_retention_days?: number | null;
    token_rate_limit?: StoredRatePolicy;
    rate_limit?: StoredRatePolicy;
  };
  employee_statuses: Json[];
  application_statuses: Json[];
  departments: Json[];
  job_openings: Json[];
  locations: Json[];
  employee_payout_fields: Json[];
  employee_fields: Json[];
  employee_job_fields: Json[];
  application_fields: Json[];
  /**
   * Records (contract §24), each the body of the POST creating it plus its
   * `external_id` (contract §22); a job names its employee and supervisor by
   * their external ids (`employee_external_id`, `supervisor_external_id`),
   * since record ids are given by the service. Imported through the bulk
   * import's row applier, so checked as that POST (scripts/lib/fixture-records.ts).
   */
  employees: Json[];
  employee_jobs: Json[];
  applications: Json[];
}

/** The record lists of a fixture, in the order they are imported (jobs need their employees). */
export const RECORD_LISTS = ['employees', 'employee_jobs', 'applications'] as const;
export type RecordList = (typeof RECORD_LISTS)[number];

const LIST_KEYS = [
  'employee_statuses',
  'application_statuses',
  'departments',
  'job_openings',
  'locations',
  'employee_payout_fields',
  'employee_fields',
  'employee_job_fields',
  'application_fields',
] as const;

export type FixtureResult = { ok: true; fixture: Fixture } | { ok: false; problems: string[] };

/**
 * The rules a JSON Schema cannot say (time zone, duplicate ids, one default
 * status, the location tree, select values), on a fixture whose shape
 * src/schemas/fixture.ts has already checked. Every problem names its entry.
 */
export function checkFixture(root: Json): FixtureResult {
  const fixture = {
    ...Object.fromEntries([...LIST_KEYS, ...RECORD_LISTS].map((k) => [k, []])),
    ...root,
  } as unknown as Fixture;
  const problems: string[] = [];
  if (!isValidTimezone(fixture.business.timezone))
    problems.push(`business: timezone "${fixture.business.timezone}" is not an IANA time zone`);

  // Reference entries are named by their id, records by their external id (contract §22).
  const named = [
    ...LIST_KEYS.map((list) => [list, 'id'] as const),
    ...RECORD_LISTS.map((list) => [list, 'external_id'] as const),
  ];
  for (const [list, key] of named) {
    const seen = new Set<string>();
    fixture[list].forEach((e, i) => {
      const eid = String(e[key]);
      if (seen.has(eid)) problems.push(`${list}[${i}] (${key} "${eid}"): duplicate ${key}`);
      seen.add(eid);
    });
  }
  for (const list of ['employee_statuses', 'application_statuses'] as const) {
    const defaults = fixture[list].map((e, i) => ({ e, i })).filter(({ e }) => e.default === true);
    for (const { e, i } of defaults.slice(1))
      problems.push(`${list}[${i}] (id "${String(e.id)}"): a second default status`);
  }

  const tree = buildLocationTree(
    fixture.locations.map((l) => ({ id: String(l.id), parent_id: (l.parent_id as string | null | undefined) ?? null })),
  );
  for (const p of tree.problems) {
    const i = fixture.locations.findIndex((l) => l.id === p.id);
    if (p.problem !== 'duplicate id') problems.push(`locations[${i}] (id "${p.id}"): ${p.problem}`);
  }

  const namedSeen = new Map<string, number>();
  fixture.employee_payout_fields.forEach((f, i) => {
    const type = String(f.type_of);
    const where = `employee_payout_fields[${i}] (id "${String(f.id)}")`;
    if ((NAMED_PAYOUT_TYPES as readonly string[]).includes(type)) {
      if (namedSeen.has(type))
        problems.push(
          `${where}: payout type "${type}" is already used by employee_payout_fields[${namedSeen.get(type)}]`,
        );
      else namedSeen.set(type, i);
    } else if (!/^[0-9]{1,18}$/.test(String(f.id))) {
      problems.push(`${where}: a custom payout field needs a numeric id (its accessor is cf_{id})`);
    }
  });
  for (const list of [
    'employee_payout_fields',
    'employee_fields',
    'employee_job_fields',
    'application_fields',
  ] as const) {
    fixture[list].forEach((f, i) => {
      const where = `${list}[${i}] (id "${String(f.id)}")`;
      const values = f.values as Json[] | null | undefined;
      if (SELECT_TYPES.has(String(f.type_of))) {
        if (!Array.isArray(values) || values.length === 0)
          problems.push(`${where}: a select field needs a non-empty "values" list`);
        else if (new Set(values.map((v) => v.id)).size !== values.length)
          problems.push(`${where}: duplicate value ids`);
      } else if (Array.isArray(values) && values.length > 0) {
        problems.push(`${where}: "values" is only allowed for select types`);
      }
    });
  }
  return problems.length ? { ok: false, problems } : { ok: true, fixture };
}

export type ReferenceKind = 'location' | 'payout_field' | 'employee_field' | 'employee_job_field' | 'application_field';

/** Public fields of one reference record, precomputed at import so reads are a single GetItem. */
export interface ReferenceRecord {
  kind: ReferenceKind;
  id: string;
  fields: Json;
}

function fieldDefinition(f: Json, locales: readonly Locale[], accessor: string): Json {
  const values = Array.isArray(f.values)
    ? (f.values as Json[]).map((v) => ({ id: v.id, ...localized(['label'], locales, v) }))
    : null;
  return {
    id: f.id,
    type_of: f.type_of,
    accessor,
    ...localized(['name', 'hint', 'placeholder'], locales, f),
    values: SELECT_TYPES.has(String(f.type_of)) ? values : null,
  };
}

/** The location records of a fixture, with their tree positions; a location outside the tree is left out. */
function locationRecords(locations: readonly Json[], locales: readonly Locale[]): ReferenceRecord[] {
  const preferred = locales[0] as Locale;
  const records: ReferenceRecord[] = [];
  const tree = buildLocationTree(
    locations.map((l) => ({ id: String(l.id), parent_id: (l.parent_id as string | null | undefined) ?? null })),
  );
  for (const l of locations) {
    const position = tree.positions.get(String(l.id));
    if (!position) continue;
    const names = localized(['name'], locales, l);
    const publicNames: Json = {};
    for (const locale of locales)
      publicNames[`public_name_${locale}`] = l[`public_name_${locale}`] ?? names[`name_${locale}`];
    records.push({
      kind: 'location',
      id: String(l.id),
      fields: {
        id: l.id,
        depth: position.depth,
        ancestor_id: position.ancestor_id,
        ancestor_ids: position.ancestor_ids,
        subtree_ids: position.subtree_ids,
        has_public_name: locales.some((loc) => publicNames[`public_name_${loc}`] !== names[`name_${loc}`]),
        // The preferred language's name; a fixture may name a location in fewer locales.
        display_name:
          names[`name_${preferred}`] ?? locales.map((loc) => names[`name_${loc}`]).find((n) => n != null) ?? l.id,
        ...names,
        ...publicNames,
        country: l.country ?? null,
        ...localized(['region', 'city'], locales, l),
        postal_code: l.postal_code ?? null,
        ...localized(['street'], locales, l),
        is_sub_business: l.is_sub_business === true,
        ...localized(['sub_business_title'], locales, l),
      },
    });
  }
  return records;
}

/** Turns a checked fixture into the business config and the reference records to store. */
export function buildBusiness(fixture: Fixture): { config: BusinessConfig; records: ReferenceRecord[] } {
  const { locales } = fixture.business;
  const records: ReferenceRecord[] = locationRecords(fixture.locations, locales);
  for (const f of fixture.employee_payout_fields) {
    const type = String(f.type_of);
    const accessor = (NAMED_PAYOUT_TYPES as readonly string[]).includes(type) ? type : accessorOf(String(f.id));
    records.push({ kind: 'payout_field', id: String(f.id), fields: fieldDefinition(f, locales, accessor) });
  }
  const customDefs = (list: Json[]): CustomFieldDefinition[] =>
    list.map(
      (f) =>
        ({
          ...fieldDefinition(f, locales, accessorOf(String(f.id))),
          required: f.required === true,
        }) as CustomFieldDefinition,
    );
  const employee_fields = customDefs(fixture.employee_fields);
  const employee_job_fields = customDefs(fixture.employee_job_fields);
  const application_fields = customDefs(fixture.application_fields);
  for (const [kind, defs] of [
    ['employee_field', employee_fields],
    ['employee_job_field', employee_job_fields],
    ['application_field', application_fields],
  ] as const)
    for (const d of defs) records.push({ kind, id: d.id, fields: d as unknown as Json });

  const ids = (list: Json[]): string[] => list.map((e) => String(e.id));
  const defaultOf = (list: Json[]): string | null => {
    const d = list.find((e) => e.default === true) ?? list[0];
    return d ? String(d.id) : null;
  };
  const config: BusinessConfig = {
    ...fixture.business,
    employee_status_ids: ids(fixture.employee_statuses),
    default_employee_status_id: defaultOf(fixture.employee_statuses),
    application_status_ids: ids(fixture.application_statuses),
    default_application_status_id: defaultOf(fixture.application_statuses),
    department_ids: ids(fixture.departments),
    job_opening_ids: ids(fixture.job_openings),
    location_ids: ids(fixture.locations),
    employee_fields,
    employee_job_fields,
    application_fields,
  };
  return { config, records };
}
