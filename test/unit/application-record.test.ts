import {
  fieldsForCreate,
  fieldsForUpdate,
  languageOf,
  renderApplication,
  type ApplicationRecord,
  type InputContext,
} from '../../src/domain/application-record';
import type { BusinessConfig } from '../../src/domain/business';

const config: BusinessConfig = {
  id: 'b',
  name: 'B',
  locales: ['de', 'en'],
  timezone: 'Europe/Rome',
  employee_status_ids: [],
  default_employee_status_id: null,
  application_status_ids: ['new', 'hired'],
  default_application_status_id: 'new',
  department_ids: [],
  job_opening_ids: ['cook'],
  location_ids: [],
  employee_fields: [],
  employee_job_fields: [],
  application_fields: [
    { id: '5', type_of: 'integer', required: false, values: null, accessor: 'cf_5' },
    { id: '6', type_of: 'text', required: true, values: null, accessor: 'cf_6' },
  ],
};

function context(failed: string[] = []): InputContext & { errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  return {
    config,
    today: '2026-06-15',
    report: (f, m) => (errors[f] ??= []).push(m),
    failed: (f) => failed.includes(f),
    errors,
  };
}

const applicant = { accept_terms_and_conditions: true, first_name: 'A', last_name: 'B', email: 'a@b.c', cf_6: 'x' };

describe('create rules', () => {
  it('defaults: speculative, default status, preferred language, archivation false, nulls', () => {
    const ctx = context();
    expect(fieldsForCreate(applicant, ctx)).toEqual({
      job_id: null,
      application_status_id: 'new',
      accept_terms_and_conditions: true,
      accept_archivation: false,
      language: 'de',
      campaign_id: null,
      first_name: 'A',
      last_name: 'B',
      gender: null,
      email: 'a@b.c',
      phone: null,
      birthday: null,
      cf: { cf_6: 'x' },
    });
    expect(ctx.errors).toEqual({});
  });

  it('reports terms not accepted (missing too), unknown job and status, future birthday, custom fields', () => {
    const ctx = context();
    fieldsForCreate(
      {
        first_name: 'A',
        last_name: 'B',
        email: 'a@b.c',
        job_id: 'waiter',
        application_status_id: 'gone',
        birthday: '2026-06-16',
        cf_5: 1.5,
      },
      ctx,
    );
    expect(ctx.errors).toEqual({
      accept_terms_and_conditions: ['must be accepted'],
      job_id: ['does not exist'],
      application_status_id: ['does not exist'],
      birthday: ['is invalid'],
      cf_5: ['is invalid'],
      cf_6: ["can't be blank"],
    });
  });

  it('birthday today is fine; fields the schema already rejected are not checked again', () => {
    const ctx = context(['job_id', 'birthday']);
    fieldsForCreate({ ...applicant, birthday: '2026-06-15', job_id: 'nope' }, ctx);
    expect(ctx.errors).toEqual({});
  });

  it('a business without statuses cannot default one', () => {
    const ctx = { ...context(), config: { ...config, default_application_status_id: null } };
    const errors: Record<string, string[]> = {};
    fieldsForCreate(applicant, { ...ctx, report: (f, m) => (errors[f] ??= []).push(m) });
    expect(errors).toEqual({ application_status_id: ["can't be blank"] });
  });
});

describe('language', () => {
  it.each([
    ['en', 'en'],
    ['it', 'de'],
    [undefined, 'de'],
    [null, 'de'],
    [7, 'de'],
  ])('%p -> %p', (input, out) => {
    expect(languageOf(config, input)).toBe(out);
  });
});

describe('update rules', () => {
  const before = fieldsForCreate({ ...applicant, job_id: 'cook', phone: '1', gender: 'male', cf_5: 3 }, context());

  it('keeps absent keys, changes present ones, null clears optional ones', () => {
    const ctx = context();
    const after = fieldsForUpdate(
      { phone: null, first_name: 'Z', application_status_id: 'hired', cf_5: null },
      before,
      ctx,
    );
    expect(ctx.errors).toEqual({});
    expect(after).toEqual({
      ...before,
      phone: null,
      first_name: 'Z',
      application_status_id: 'hired',
      cf: { cf_5: null, cf_6: 'x' },
    });
  });

  it('status null is blank, unknown status does not exist; required custom fields only when sent', () => {
    const a = context();
    fieldsForUpdate({ application_status_id: null }, before, a);
    expect(a.errors).toEqual({ application_status_id: ["can't be blank"] });
    const b = context();
    fieldsForUpdate({ application_status_id: 'x', cf_6: '' }, before, b);
    expect(b.errors).toEqual({ application_status_id: ['does not exist'], cf_6: ["can't be blank"] });
  });

  it('language: present and invalid falls back, absent stays', () => {
    const en = fieldsForUpdate({ language: 'en' }, before, context());
    expect(en.language).toBe('en');
    expect(fieldsForUpdate({}, en, context()).language).toBe('en');
    expect(fieldsForUpdate({ language: 'fr' }, en, context()).language).toBe('de');
  });
});

describe('rendering', () => {
  it('every defined custom field, null where unset, in the documented order', () => {
    const app: ApplicationRecord = {
      id: 'x',
      ...fieldsForCreate(applicant, context()),
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
      version: 3,
    };
    const out = renderApplication(config, app);
    expect(Object.keys(out)).toEqual([
      'id',
      'job_id',
      'application_status_id',
      'accept_terms_and_conditions',
      'accept_archivation',
      'language',
      'campaign_id',
      'first_name',
      'last_name',
      'gender',
      'email',
      'phone',
      'birthday',
      'cf_5',
      'cf_6',
      'created_at',
      'updated_at',
    ]);
    expect(out.cf_5).toBeNull();
    expect(out.cf_6).toBe('x');
  });
});
