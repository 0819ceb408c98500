/**
 * One valid request per token route of the route table, against the demo
 * fixture, so tests can iterate ROUTES instead of hand-listing endpoints. Keyed
 * by route name: a new token route does not compile until it has a sample here.
 */
import { ROUTES, type RouteDefinition, type RouteName } from '../../src/http/routes';
import { API, type TestApi } from './harness';
import type { Scope } from '../../src/domain/scopes';

/** Ids of records a sample may refer to, created by `createSampleRecords`. */
export interface SampleIds {
  readonly employee: string;
  readonly job: string;
  readonly application: string;
  /** An application the DELETE sample erases (the first DELETE answers 204, later ones 404). */
  readonly erasable: string;
  readonly subscription: string;
  /** An attachment of `application`, and the application that takes the create sample's attachments (20 at most). */
  readonly attachment: string;
  readonly attachable: string;
  readonly export: string;
  /** An import awaiting its upload (one per business at a time): the DELETE sample cancels it (204, then 409). */
  readonly import: string;
}

/** Attachments of `application` the DELETE sample removes, one per request. */
const doomedAttachments: string[] = [];
/** Subscriptions the DELETE sample removes, one per request (a deleted one is 404 the next time). */
const doomedSubscriptions: string[] = [];
const allDoomed: string[] = [];

/** Every id of the sample business a sample request may name: the sample records and the DELETE sample's subscriptions. */
export const sampleRecordIds = (ids: SampleIds): string[] => [...Object.values(ids).flat(), ...allDoomed];

/** A webhook target on the loopback discard port: allowed locally, nothing is ever delivered in these tests. */
const HOOK_URL = 'http://127.0.0.1:9/hook';

export interface SampleRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  /**
   * Scopes the body or the record asks for besides the route's own (POST /exports: the read scope of each type,
   * contract §20; GET /exports/{id}: that of each type the export holds, §25).
   */
  readonly alsoNeeds?: readonly Scope[];
  /**
   * Headers a repeatable success needs: POST /imports sends the Idempotency-Key createSampleRecords started the
   * sample import with, so every send replays its 201 (a business runs one import at a time, contract §22).
   */
  readonly headers?: Record<string, string>;
}

/** The Idempotency-Key of the sample import (per business: each business's first send creates its import). */
const IMPORT_SAMPLE = {
  key: 'route-sample-import',
  body: { type: 'employees', format: 'csv', mode: 'validate', size: 100 },
} as const;

type TokenRoute = Extract<(typeof ROUTES)[number], { auth: true }>;
type TokenRouteName = TokenRoute['name'];

let n = 0;
const unique = (): string => `${Date.now().toString(36)}-${++n}`;

const SAMPLES: Record<TokenRouteName, (ids: SampleIds) => SampleRequest> = {
  'create-employee': () => ({
    method: 'POST',
    path: `${API}/employees`,
    body: { first_name: 'Sample', last_name: 'Person', employee_number: `S-${unique()}` },
  }),
  'list-employees': () => ({ method: 'GET', path: `${API}/employees?per_page=5` }),
  'list-changes': () => ({ method: 'GET', path: `${API}/changes?limit=5` }),
  'get-employee': (ids) => ({ method: 'GET', path: `${API}/employees/${ids.employee}` }),
  'update-employee': (ids) => ({
    method: 'PUT',
    path: `${API}/employees/${ids.employee}`,
    body: { city: `City ${unique()}` },
  }),
  'create-employee-job': (ids) => ({
    method: 'POST',
    path: `${API}/employee_jobs`,
    body: { employee_id: ids.employee, name: 'Cook', from: '2026-01-01' },
  }),
  'list-employee-jobs': () => ({ method: 'GET', path: `${API}/employee_jobs?per_page=5` }),
  'get-employee-job': (ids) => ({ method: 'GET', path: `${API}/employee_jobs/${ids.job}` }),
  'list-employee-payout-fields': () => ({ method: 'GET', path: `${API}/employee_payout_fields?per_page=2` }),
  'get-employee-payout-field': () => ({ method: 'GET', path: `${API}/employee_payout_fields/41` }),
  'list-locations': () => ({ method: 'GET', path: `${API}/locations?per_page=2` }),
  'get-location': () => ({ method: 'GET', path: `${API}/locations/hq` }),
  'list-employee-fields': () => ({ method: 'GET', path: `${API}/employee_fields` }),
  'list-employee-job-fields': () => ({ method: 'GET', path: `${API}/employee_job_fields` }),
  'list-application-fields': () => ({ method: 'GET', path: `${API}/application_fields` }),
  'create-application': () => ({
    method: 'POST',
    path: `${API}/applications`,
    body: {
      first_name: 'Sample',
      last_name: 'Applicant',
      email: `s-${unique()}@example.com`,
      accept_terms_and_conditions: true,
      job_id: 'cook-2026',
    },
  }),
  'list-applications': () => ({ method: 'GET', path: `${API}/applications?per_page=5` }),
  'get-application': (ids) => ({ method: 'GET', path: `${API}/applications/${ids.application}` }),
  'update-application': (ids) => ({
    method: 'PUT',
    path: `${API}/applications/${ids.application}`,
    body: { phone: `+39 ${Math.floor(Math.random() * 1e9)}` },
  }),
  'delete-application': (ids) => ({ method: 'DELETE', path: `${API}/applications/${ids.erasable}` }),
  'create-attachment': (ids) => ({
    method: 'POST',
    path: `${API}/applications/${ids.attachable}/attachments`,
    body: { file_name: 'cv.pdf', content_type: 'application/pdf', size: 1000 },
  }),
  'list-attachments': (ids) => ({ method: 'GET', path: `${API}/applications/${ids.application}/attachments` }),
  'get-attachment': (ids) => ({
    method: 'GET',
    path: `${API}/applications/${ids.application}/attachments/${ids.attachment}`,
  }),
  'delete-attachment': (ids) => {
    const id = doomedAttachments.pop();
    if (!id) throw new Error('createSampleRecords made too few attachments for the DELETE sample');
    return { method: 'DELETE', path: `${API}/applications/${ids.application}/attachments/${id}` };
  },
  'create-webhook-subscription': () => ({
    method: 'POST',
    path: `${API}/webhook_subscriptions`,
    body: { url: `${HOOK_URL}?${unique()}` },
  }),
  'list-webhook-subscriptions': () => ({ method: 'GET', path: `${API}/webhook_subscriptions?per_page=5` }),
  'get-webhook-subscription': (ids) => ({ method: 'GET', path: `${API}/webhook_subscriptions/${ids.subscription}` }),
  'list-webhook-deliveries': (ids) => ({
    method: 'GET',
    path: `${API}/webhook_subscriptions/${ids.subscription}/deliveries`,
  }),
  'resume-webhook-subscription': (ids) => ({
    method: 'POST',
    path: `${API}/webhook_subscriptions/${ids.subscription}/resume`,
    body: {},
  }),
  'ping-webhook-subscription': (ids) => ({
    method: 'POST',
    path: `${API}/webhook_subscriptions/${ids.subscription}/ping`,
  }),
  'create-export': () => ({
    method: 'POST',
    path: `${API}/exports`,
    body: { types: ['applications'] },
    alsoNeeds: ['applications:read'],
  }),
  // The sample export holds employees (createSampleRecords).
  'get-export': (ids) => ({ method: 'GET', path: `${API}/exports/${ids.export}`, alsoNeeds: ['employees:read'] }),
  'create-import': () => ({
    method: 'POST',
    path: `${API}/imports`,
    body: IMPORT_SAMPLE.body,
    headers: { 'idempotency-key': IMPORT_SAMPLE.key },
  }),
  'list-imports': () => ({ method: 'GET', path: `${API}/imports?per_page=5` }),
  'get-import': (ids) => ({ method: 'GET', path: `${API}/imports/${ids.import}` }),
  'delete-import': (ids) => ({ method: 'DELETE', path: `${API}/imports/${ids.import}` }),
  'delete-webhook-subscription': () => {
    const id = doomedSubscriptions.pop();
    if (!id) throw new Error('createSampleRecords made too few subscriptions for the DELETE sample');
    return { method: 'DELETE', path: `${API}/webhook_subscriptions/${id}` };
  },
};

/** Every route that needs a token, with its scope, from the route table. */
export const TOKEN_ROUTES = ROUTES.filter((r): r is TokenRoute => r.auth) as readonly TokenRoute[];

export const sampleRequest = (route: RouteDefinition & { name: RouteName }, ids: SampleIds): SampleRequest => {
  const sample = SAMPLES[route.name as TokenRouteName];
  if (!sample) throw new Error(`No sample request for route ${route.name}`);
  return sample(ids);
};

/**
 * An employee, one of their jobs, an application and webhook subscriptions, created with a full-access token, and
 * `doomed` attachments and subscriptions for the DELETE samples (each sampleRequest of a DELETE route takes one).
 */
export async function createSampleRecords(api: TestApi, token: string, { doomed = 16 } = {}): Promise<SampleIds> {
  const post = async (path: string, body: unknown): Promise<string> => {
    const res = await api.request('POST', `${API}${path}`, { token, body });
    if (res.status !== 201) throw new Error(`setup POST ${path}: ${res.status} ${res.text}`);
    return res.body.id as string;
  };
  const employee = await post('/employees', { first_name: 'Eva', last_name: 'Sample' });
  const job = await post('/employee_jobs', { employee_id: employee, name: 'Cook', from: '2026-01-01' });
  const application = await post('/applications', {
    first_name: 'Al',
    last_name: 'Sample',
    email: 'al@example.com',
    accept_terms_and_conditions: true,
    job_id: null,
  });
  const erasable = await post('/applications', {
    first_name: 'Er',
    last_name: 'Asable',
    email: 'er@example.com',
    accept_terms_and_conditions: true,
  });
  const hook = { url: HOOK_URL };
  const subscription = await post('/webhook_subscriptions', hook);
  for (let i = 0; i < doomed; i++) doomedSubscriptions.push(await post('/webhook_subscriptions', hook));
  allDoomed.push(...doomedSubscriptions);
  const cv = { file_name: 'cv.txt', content_type: 'text/plain', size: 10 };
  const attachment = await post(`/applications/${application}/attachments`, cv);
  for (let i = 0; i < doomed; i++) doomedAttachments.push(await post(`/applications/${application}/attachments`, cv));
  allDoomed.push(...doomedAttachments);
  const attachable = await post('/applications', {
    first_name: 'At',
    last_name: 'Tachable',
    email: 'at@example.com',
    accept_terms_and_conditions: true,
  });
  const imported = await api.request('POST', `${API}/imports`, {
    token,
    body: IMPORT_SAMPLE.body,
    headers: { 'idempotency-key': IMPORT_SAMPLE.key },
  });
  if (imported.status !== 201) throw new Error(`setup POST /imports: ${imported.status} ${imported.text}`);
  const started = await api.request('POST', `${API}/exports`, { token, body: { types: ['employees'] } });
  if (started.status !== 202) throw new Error(`setup POST /exports: ${started.status} ${started.text}`);
  // Done before any test compares the table or counts calls (its worker runs beside the requests).
  await exportDone(api, token, started.body.id as string);
  return {
    employee,
    job,
    application,
    erasable,
    subscription,
    attachment,
    attachable,
    export: started.body.id as string,
    import: imported.body.id as string,
  };
}

/** Waits until an export started by a sample is no longer running (its worker runs beside the requests). */
export async function exportDone(api: TestApi, token: string, id: string): Promise<void> {
  for (let i = 0; ; i++) {
    const shown = await api.request('GET', `${API}/exports/${id}`, { token });
    if (shown.body.status !== 'running') return;
    if (i > 200) throw new Error(`export ${id} did not finish`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The status a sample answers when admitted: 201 for a create (202 for one that starts work), 204 for a delete, else 200. */
export const successStatus = (route: RouteDefinition): number =>
  route.accepted ? 202 : route.method === 'POST' && !route.acts ? 201 : route.method === 'DELETE' ? 204 : 200;
