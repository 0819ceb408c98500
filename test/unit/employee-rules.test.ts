import type { BusinessConfig } from '../../src/domain/business';
import { FieldErrorCollector } from '../../src/domain/errors';
import { ifMatchAllows } from '../../src/domain/result';
import { employeeJobView, jobFields } from '../../src/services/employee-jobs';
import { employeeChanges, employeeView, jobSpansOf, normalizeEmployeeNumber } from '../../src/services/employees';

const config: BusinessConfig = {
  id: 'b',
  name: 'B',
  locales: ['de', 'en'],
  timezone: 'Europe/Rome',
  employee_status_ids: ['active', 'former'],
  default_employee_status_id: 'active',
  application_status_ids: [],
  default_application_status_id: null,
  department_ids: ['kitchen'],
  job_opening_ids: [],
  location_ids: ['hq'],
  employee_fields: [
    { id: '1', type_of: 'integer', required: true, values: null, accessor: 'cf_1' },
    { id: '2', type_of: 'text', required: false, values: null, accessor: 'cf_2' },
  ],
  employee_job_fields: [{ id: '3', type_of: 'currency', required: false, values: null, accessor: 'cf_3' }],
  application_fields: [],
};

const TODAY = '2026-06-15';

function changes(body: Record<string, unknown>, mode: 'create' | 'update') {
  const errors = new FieldErrorCollector();
  const out = employeeChanges(
    body,
    config,
    mode,
    TODAY,
    (f, m) => errors.add(f, m),
    (f) => errors.has(f),
  );
  let fields: Record<string, string[]> = {};
  try {
    errors.throwIfAny();
  } catch (e) {
    fields = (e as { fields: Record<string, string[]> }).fields;
  }
  return { out, errors: fields };
}

describe('employeeChanges', () => {
  it('create: every fixed field gets a value, with the business defaults', () => {
    const { out, errors } = changes({ first_name: 'A', last_name: 'B', cf_1: 3 }, 'create');
    expect(errors).toEqual({});
    expect(out).toMatchObject({ first_name: 'A', language: 'de', employee_status_id: 'active', email: null, cf_1: 3 });
    expect(out).not.toHaveProperty('cf_2');
    expect(Object.keys(out)).toContain('swift');
  });

  it('update: only the keys sent; null language and status return to the defaults', () => {
    const { out } = changes({ phone: '1', language: null, employee_status_id: null }, 'update');
    expect(out).toEqual({ phone: '1', language: 'de', employee_status_id: 'active' });
  });

  it('normalizes iban, swift and employee_number', () => {
    const { out } = changes(
      { iban: 'de89 3704 0044 0532 0130 00', swift: 'deutdeff', employee_number: '  7 ' },
      'update',
    );
    expect(out).toEqual({ iban: 'DE89370400440532013000', swift: 'DEUTDEFF', employee_number: '7' });
    expect(changes({ employee_number: '   ' }, 'update').out).toEqual({ employee_number: null });
  });

  it('business-dependent checks: locale, status, birthday after today, custom fields', () => {
    const { errors } = changes(
      { language: 'it', employee_status_id: 'gone', birthday: '2026-06-16', cf_1: null, cf_9: 1 },
      'update',
    );
    expect(errors).toEqual({
      language: ['is not included in the list'],
      employee_status_id: ['does not exist'],
      birthday: ['is invalid'],
      cf_1: ["can't be blank"],
      cf_9: ['is not a known field'],
    });
    expect(changes({ birthday: TODAY }, 'update').errors).toEqual({});
  });

  it('create requires required custom fields', () => {
    expect(changes({ first_name: 'A', last_name: 'B' }, 'create').errors).toEqual({ cf_1: ["can't be blank"] });
  });

  it('does not check a field the schema already rejected', () => {
    const errors = new FieldErrorCollector();
    errors.add('employee_status_id', 'is invalid');
    const out = employeeChanges(
      { employee_status_id: 5 },
      config,
      'update',
      TODAY,
      (f, m) => errors.add(f, m),
      (f) => errors.has(f),
    );
    expect(() => errors.throwIfAny()).toThrow(
      expect.objectContaining({ fields: { employee_status_id: ['is invalid'] } }),
    );
    expect(out).not.toHaveProperty('employee_status_id');
  });
});

describe('employeeView', () => {
  const item = {
    id: 'e1',
    first_name: 'A',
    last_name: 'B',
    language: 'de',
    employee_status_id: 'active',
    cf_1: 4,
    cf_old: 'not defined any more',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z',
    version: 3,
    job_count: 2,
    job_summary: {
      j1: { seq: 1, from: '2025-01-01', to: '2025-12-31', supervisor_id: null, location_id: 'hq', department_id: null },
      j2: { seq: 2, from: '2026-06-01', to: null, supervisor_id: 's', location_id: 'hq', department_id: 'kitchen' },
    },
    PK: 'x',
    ListSK: 1,
  };

  it('shows every public field (null where unset) and no storage attributes', () => {
    const view = employeeView(item, config, TODAY);
    expect(view).toMatchObject({ id: 'e1', email: null, cf_1: 4, cf_2: null, swift: null });
    for (const hidden of ['PK', 'ListSK', 'version', 'job_count', 'job_summary', 'cf_old'])
      expect(view).not.toHaveProperty(hidden);
    expect(Object.keys(view)[0]).toBe('id');
    expect(Object.keys(view).slice(-2)).toEqual(['created_at', 'updated_at']);
  });

  it('derives the job fields from the summary as of the given day', () => {
    expect(employeeView(item, config, TODAY)).toMatchObject({
      has_active_employee_job: true,
      first_employee_job_from: '2025-01-01',
      current_employee_job_from: '2026-06-01',
      supervisor_id: 's',
      department_id: 'kitchen',
    });
    expect(employeeView(item, config, '2026-03-01')).toMatchObject({
      has_active_employee_job: false,
      has_active_or_future_employee_job: true,
      current_employee_job_from: null,
      current_or_last_employee_job_from: '2026-06-01',
    });
  });

  it('jobSpansOf tolerates an employee without jobs', () => {
    expect(jobSpansOf({ id: 'x' })).toEqual([]);
    expect(jobSpansOf(item).map((s) => s.id)).toEqual(['j1', 'j2']);
  });
});

describe('ifMatchAllows', () => {
  it('matches *, the current tag, or a list containing it; never a weak tag', () => {
    expect(ifMatchAllows('*', '"a"')).toBe(true);
    expect(ifMatchAllows('"a"', '"a"')).toBe(true);
    expect(ifMatchAllows('"b", "a"', '"a"')).toBe(true);
    expect(ifMatchAllows('W/"a"', '"a"')).toBe(false);
    expect(ifMatchAllows('"b"', '"a"')).toBe(false);
  });
});

describe('normalizeEmployeeNumber', () => {
  it('trims; blank is none; absent stays absent', () => {
    expect(normalizeEmployeeNumber(' 12 ')).toBe('12');
    expect(normalizeEmployeeNumber('')).toBeNull();
    expect(normalizeEmployeeNumber(null)).toBeNull();
    expect(normalizeEmployeeNumber(undefined)).toBeUndefined();
  });
});

describe('jobFields', () => {
  function run(body: Record<string, unknown>, refs = { employeeId: 'e1', supervisorExists: true }) {
    const errors = new FieldErrorCollector();
    const out = jobFields(
      body,
      config,
      refs,
      (f, m) => errors.add(f, m),
      (f) => errors.has(f),
    );
    try {
      errors.throwIfAny();
      return { out, errors: {} };
    } catch (e) {
      return { out, errors: (e as { fields: Record<string, string[]> }).fields };
    }
  }

  it('fills every fixed field and rounds currency custom fields', () => {
    const { out, errors } = run({ employee_id: 'e1', name: 'N', from: '2026-01-01', cf_3: 1.005 });
    expect(errors).toEqual({});
    expect(out).toMatchObject({ employee_id: 'e1', to: null, time_table: null, supervisor_id: null, cf_3: 1.01 });
  });

  it('checks references, self-supervision and to >= from', () => {
    expect(
      run({
        employee_id: 'e1',
        name: 'N',
        from: '2026-01-02',
        to: '2026-01-01',
        department_id: 'x',
        location_id: 'y',
        supervisor_id: 'e1',
      }).errors,
    ).toEqual({
      to: ['must be on or after from'],
      department_id: ['does not exist'],
      location_id: ['does not exist'],
      supervisor_id: ['is invalid'],
    });
    expect(
      run({ from: '2026-01-01', supervisor_id: 's' }, { employeeId: 'e1', supervisorExists: false }).errors,
    ).toEqual({
      supervisor_id: ['does not exist'],
    });
    expect(run({ from: '2026-01-01', to: '2026-01-01' }).errors).toEqual({});
  });

  it('view: every field, custom fields of the business, no storage attributes', () => {
    const view = employeeJobView(
      { id: 'j', name: 'N', from: '2026-01-01', SubSK: 1, created_at: 'c', updated_at: 'u' },
      config,
    );
    expect(view).toMatchObject({ id: 'j', name: 'N', to: null, cf_3: null, created_at: 'c', updated_at: 'u' });
    expect(view).not.toHaveProperty('SubSK');
  });
});
