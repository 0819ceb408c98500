/**
 * The served document tells the truth (issue: a generator fed the create-employee schema produced bodies the API
 * refused): every create/update request schema, fed to a third-party JSON Schema faker many times, yields bodies
 * the API accepts. Filled in by hand, as the document cannot know them: ids of records that exist (references),
 * `to` on or after `from` and a webhook URL that resolves (facts of the business and the world, not of a field).
 * Also filled in: a unique `employee_number` (a fact of the business's other records) and a birthday not in the
 * future (a bound that moves with the day). The IBAN's mod-97 checksum is beyond a pattern: the faker makes IBANs
 * by the `iban` format the document names. The faker computes `multipleOf: 0.000001` values in binary floating
 * point (62.707393999999994 for 62707394 steps): they are rounded to the decimals the document means.
 */
import { generateSync } from 'json-schema-faker';
import demo from '../../fixtures/demo.json';
import { API, startApi, type TestApi } from '../support/harness';

/**
 * Bodies per schema: 12, fewer where the schema leaves few choices (and each create starts work: an export). Every
 * other body has every optional field faked (`alwaysFakeOptionals`), the seeds are fixed: each schema's bodies give
 * each of its fields a value (asserted below), and a refused body reproduces from its seed.
 */
const SAMPLES: Record<string, number> = {
  ExportCreate: 4,
  WebhookSubscriptionCreate: 6,
  ImportCreate: 6,
};
const samplesOf = (schema: string): number => SAMPLES[schema] ?? 12;
let api: TestApi;
let token: string;
let components: { schemas: Record<string, object> };
let employeeIds: string[];
let applicationIds: string[];

beforeAll(async () => {
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: 'truth' } });
  components = (await api.request('GET', `${API}/openapi.json`)).body.components;
  const create = async (path: string, body: object) => {
    const res = await api.request('POST', `${API}${path}`, { token, body });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body.id as string;
  };
  employeeIds = [
    await create('/employees', { first_name: 'Ref', last_name: 'One' }),
    await create('/employees', { first_name: 'Ref', last_name: 'Two' }),
  ];
  applicationIds = [];
  for (let i = 0; i < 3; i++)
    applicationIds.push(
      await create('/applications', {
        first_name: 'Ref',
        last_name: `A${i}`,
        email: `a${i}@example.com`,
        accept_terms_and_conditions: true,
      }),
    );
}, 60_000);
afterAll(() => api.close());

/** A valid IBAN (ISO 13616) from the faker's random numbers: a country, a BBAN, the check digits computed. */
function iban(random: () => number): string {
  const countries = ['DE', 'IT', 'AT', 'FR', 'CH', 'NL'];
  const country = countries[Math.floor(random() * countries.length)]!;
  let bban = '';
  for (let i = 0; i < 10 + Math.floor(random() * 12); i++)
    bban += '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'[Math.floor(random() * 36)];
  const digits = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let remainder = 0;
  for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;
const TODAY = new Date().toISOString().slice(0, 10);

/** What every body gets: the record's facts that no schema can state (see the top of this file). */
function fillFacts(body: Record<string, unknown>, i: number): Record<string, unknown> {
  if (typeof body.employee_number === 'string')
    body.employee_number = `${body.employee_number.slice(0, 80)}-${i}-${Date.now()}`;
  if (typeof body.birthday === 'string' && body.birthday > TODAY) body.birthday = '2000-02-29';
  return JSON.parse(JSON.stringify(body), (_k, v: unknown) =>
    typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(6)) : v,
  ) as Record<string, unknown>;
}

/** Each create/update operation: its request schema, where it is sent, and the facts the document cannot know. */
const CASES: {
  schema: string;
  method: string;
  path: (i: number) => string;
  fill: (body: Record<string, unknown>, i: number) => void;
}[] = [
  {
    schema: 'EmployeeCreate',
    method: 'POST',
    path: () => '/employees',
    fill: (b, i) => {
      if (b.employee_status_id != null) b.employee_status_id = pick(demo.employee_statuses, i).id;
    },
  },
  {
    schema: 'EmployeeUpdate',
    method: 'PUT',
    path: (i) => `/employees/${pick(employeeIds, i)}`,
    fill: (b, i) => {
      if (b.employee_status_id != null) b.employee_status_id = pick(demo.employee_statuses, i).id;
    },
  },
  {
    schema: 'EmployeeJobCreate',
    method: 'POST',
    path: () => '/employee_jobs',
    fill: (b, i) => {
      b.employee_id = employeeIds[0];
      if (b.supervisor_id != null) b.supervisor_id = employeeIds[1];
      if (b.department_id != null) b.department_id = pick(demo.departments, i).id;
      if (b.location_id != null) b.location_id = pick(demo.locations, i).id;
      if (typeof b.to === 'string' && typeof b.from === 'string' && b.to < b.from) [b.from, b.to] = [b.to, b.from];
    },
  },
  {
    schema: 'ApplicationCreate',
    method: 'POST',
    path: () => '/applications',
    fill: (b, i) => {
      if (b.job_id != null) b.job_id = pick(demo.job_openings, i).id;
      if (b.application_status_id != null) b.application_status_id = pick(demo.application_statuses, i).id;
    },
  },
  {
    schema: 'ApplicationUpdate',
    method: 'PUT',
    path: (i) => `/applications/${pick(applicationIds, i)}`,
    fill: (b, i) => {
      if (b.application_status_id != null) b.application_status_id = pick(demo.application_statuses, i).id;
    },
  },
  {
    schema: 'AttachmentCreate',
    method: 'POST',
    // At most 20 attachments per application (a count of the business's records, not a property of the body).
    path: (i) => `/applications/${applicationIds[Math.floor(i / 15)]}/attachments`,
    fill: () => {},
  },
  { schema: 'ExportCreate', method: 'POST', path: () => '/exports', fill: () => {} },
  // One import per business at a time: each is cancelled again below (its upload never made).
  { schema: 'ImportCreate', method: 'POST', path: () => '/imports', fill: () => {} },
  {
    schema: 'WebhookSubscriptionCreate',
    method: 'POST',
    path: () => '/webhook_subscriptions',
    fill: (b) => {
      b.url = 'http://127.0.0.1:9/hook';
    },
  },
];

describe.each(CASES)('$schema', ({ schema, method, path, fill }) => {
  it(`${samplesOf(schema)} faked bodies, each field given a value by one at least: none answered 422 (or any 4xx)`, async () => {
    const refused: { body: unknown; status: number; answer: unknown }[] = [];
    const valued = new Set<string>();
    for (let i = 0; i < samplesOf(schema); i++) {
      let body = generateSync(
        { ...components.schemas[schema], components },
        { seed: 1000 + i, alwaysFakeOptionals: i % 2 === 0, formats: { iban: (random) => iban(() => random.next()) } },
      ) as Record<string, unknown>;
      fill(body, i);
      body = fillFacts(body, i);
      for (const [field, value] of Object.entries(body)) if (value != null) valued.add(field);
      const res = await api.request(method, `${API}${path(i)}`, { token, body });
      if (res.status >= 400) refused.push({ body, status: res.status, answer: res.body });
      if (schema === 'WebhookSubscriptionCreate' && res.status === 201)
        await api.request('DELETE', `${API}/webhook_subscriptions/${res.body.id}`, { token });
      if (schema === 'ImportCreate' && res.status === 201)
        await api.request('DELETE', `${API}/imports/${res.body.id}`, { token });
    }
    expect(refused).toEqual([]);
    const fields = Object.keys((components.schemas[schema] as { properties: object }).properties);
    expect(fields.filter((field) => !valued.has(field))).toEqual([]);
  });
});
