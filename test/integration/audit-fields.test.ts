/* eslint-disable @typescript-eslint/no-explicit-any -- feed entries are arbitrary JSON the tests inspect freely */
import demo from '../../fixtures/demo.json';
import { API, countCalls, startApi, type TestApi } from '../support/harness';
import { createToken, listTokens } from '../../src/data/token-store';
import { runRetention } from '../../src/services/retention';
import { createEmployee } from '../../src/services/employees';
import { adminContext } from '../../src/services/request-context';
import { FieldErrorCollector } from '../../src/domain/errors';
import { laneOf } from '../../src/domain/change-feed';
import { getItem } from '../../src/data/dynamo/table-io';
import { keys } from '../../src/data/dynamo/keys';

/**
 * Contract §20, audit fields: every change-feed entry (and so every webhook
 * delivery, whose body is the entry) names who made it (`actor`), the request
 * it answered (`request_id`), and on `*.updated` which fields changed. Erasure
 * keeps them; `token_id` filters the feed by token at a flat cost.
 */
jest.setTimeout(120_000);

const BUSINESS = 'audit';
let api: TestApi;
let token: string;
let tokenId: string;
let other: string;
let otherId: string;

beforeAll(async () => {
  api = await startApi();
  await api.provision({
    ...demo,
    business: { ...demo.business, id: BUSINESS, application_retention_days: 30 },
  });
  token = (await createToken(BUSINESS, { name: 'payroll sync' })).token;
  other = (await createToken(BUSINESS, { name: 'career site' })).token;
  const listed = await listTokens(BUSINESS);
  tokenId = listed.find((t) => t.name === 'payroll sync')!.hash_prefix;
  otherId = listed.find((t) => t.name === 'career site')!.hash_prefix;
});
afterAll(() => api.close());

const send = (method: string, path: string, body?: unknown, t = token) =>
  api.request(method, `${API}${path}`, { token: t, ...(body !== undefined ? { body } : {}) });
const changes = (query: string) => api.request('GET', `${API}/changes?${query}`, { token });

/** Every entry after `cursor` (undefined: from the start), following next_cursor. */
async function drain(cursor?: string, extra = ''): Promise<{ entries: any[]; cursor: string }> {
  const entries: any[] = [];
  let after = cursor;
  for (;;) {
    const res = await changes(`limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}${extra}`);
    expect(res.status).toBe(200);
    entries.push(...res.body.entries);
    if (res.body.entries.length === 0) return { entries, cursor: res.body.next_cursor };
    after = res.body.next_cursor;
  }
}

const applicant = (n: string) => ({
  first_name: 'Audit',
  last_name: n,
  email: `audit-${n}@example.com`,
  phone: '+39 0471 000000',
  accept_terms_and_conditions: true,
  job_id: 'cook-2026',
});

describe('actor and request id', () => {
  it('an API write names its token (hash prefix as token list shows it, name) and the X-Request-Id answered', async () => {
    const from = (await drain()).cursor;
    const created = await send('POST', '/employees', { first_name: 'Ada', last_name: 'Audit' });
    const updated = await send('PUT', `/employees/${created.body.id}`, { phone: '+39 1' }, other);
    expect([created.status, updated.status]).toEqual([201, 200]);
    const { entries } = await drain(from);
    expect(entries.map((e) => [e.type, e.actor, e.request_id])).toEqual([
      [
        'employee.created',
        { type: 'token', token_id: tokenId, token_name: 'payroll sync' },
        created.headers.get('x-request-id'),
      ],
      [
        'employee.updated',
        { type: 'token', token_id: otherId, token_name: 'career site' },
        updated.headers.get('x-request-id'),
      ],
    ]);
    expect(tokenId).toMatch(/^[0-9a-f]{12}$/);
    expect(created.headers.get('x-request-id')).not.toEqual(updated.headers.get('x-request-id'));
  });

  it('costs a write no DynamoDB call: a create and an update stay 3 round trips (the token GetItem first)', async () => {
    const app = await countCalls(() => send('POST', '/applications', applicant('cost')));
    expect(app.result.status).toBe(201);
    expect(app.roundTrips).toBe(3);
    const put = await countCalls(() => send('PUT', `/applications/${app.result.body.id}`, { last_name: 'Cost 2' }));
    expect(put.result.status).toBe(200);
    expect(put.roundTrips).toBe(3);
  });

  it('retention writes as the system job, without a request id', async () => {
    const app = await send('POST', '/applications', applicant('retained'));
    const from = (await drain()).cursor;
    const result = await runRetention({ nowMs: Date.now() + 31 * 24 * 3600 * 1000, businessId: BUSINESS });
    expect(result.erased).toBeGreaterThanOrEqual(1);
    const deleted = (await drain(from)).entries.find((e) => e.id === app.body.id);
    expect(deleted).toMatchObject({
      type: 'application.deleted',
      actor: { type: 'system', name: 'retention' },
      request_id: null,
      data: null,
    });
    expect(deleted).not.toHaveProperty('changed_fields');
  });

  it('the admin tool (a write outside any API request or job) writes as admin, without a request id', async () => {
    const from = (await drain()).cursor;
    const result = await createEmployee(
      adminContext(BUSINESS, { path: `${API}/employees` }),
      { first_name: 'Operator', last_name: 'Seeded' },
      new FieldErrorCollector(),
    );
    expect(result.status).toBe(201);
    const { entries } = await drain(from);
    expect(entries.map((e) => [e.type, e.actor, e.request_id])).toEqual([
      ['employee.created', { type: 'admin' }, null],
    ]);
  });
});

describe('changed_fields', () => {
  it('names the one field an update changed, and only on *.updated entries', async () => {
    const from = (await drain()).cursor;
    const app = await send('POST', '/applications', applicant('single'));
    expect((await send('PUT', `/applications/${app.body.id}`, { application_status_id: 'interview' })).status).toBe(
      200,
    );
    const { entries } = await drain(from);
    expect(entries[0]).not.toHaveProperty('changed_fields');
    expect(entries[1]).toMatchObject({ type: 'application.updated', changed_fields: ['application_status_id'] });
  });

  it('names every changed field, sorted, never values; fields sent with their current value are not named', async () => {
    const from = (await drain()).cursor;
    const emp = await send('POST', '/employees', { first_name: 'Multi', last_name: 'Field', phone: '+39 2' });
    const put = await send('PUT', `/employees/${emp.body.id}`, {
      phone: '+39 2', // unchanged
      last_name: 'Fields',
      email: 'multi@example.com',
      cf_12: '42',
      gender: 'female',
    });
    expect(put.status).toBe(200);
    const job = await send('POST', '/employee_jobs', { employee_id: emp.body.id, name: 'Cook', from: '2020-01-01' });
    expect(job.status).toBe(201);
    const { entries } = await drain(from);
    const updates = entries.filter((e) => e.type === 'employee.updated');
    expect(updates[0].changed_fields).toEqual(['cf_12', 'email', 'gender', 'last_name']);
    expect(JSON.stringify(updates[0].changed_fields)).not.toContain('multi@example.com');
    // A new job moves the employee's derived fields: those are what changed.
    expect(updates[1].changed_fields).toEqual(
      expect.arrayContaining(['first_employee_job_from', 'has_active_employee_job']),
    );
    expect(updates[1].changed_fields).toEqual([...updates[1].changed_fields].sort());
    expect(updates[1].changed_fields).not.toContain('updated_at');
  });
});

describe('erasure keeps the audit fields', () => {
  it('earlier entries lose their data, not who made them, the request id or the changed fields', async () => {
    const from = (await drain()).cursor;
    const app = await send('POST', '/applications', applicant('erased'));
    const put = await send('PUT', `/applications/${app.body.id}`, { first_name: 'Erased', cf_31: 'why not' }, other);
    const del = await send('DELETE', `/applications/${app.body.id}`);
    expect([app.status, put.status, del.status]).toEqual([201, 200, 204]);
    const { entries } = await drain(from);
    expect(entries.map((e) => [e.type, e.data, e.actor.token_name, e.request_id, e.changed_fields])).toEqual([
      ['application.created', null, 'payroll sync', app.headers.get('x-request-id'), undefined],
      ['application.updated', null, 'career site', put.headers.get('x-request-id'), ['cf_31', 'first_name']],
      ['application.deleted', null, 'payroll sync', del.headers.get('x-request-id'), undefined],
    ]);
  });
});

describe('GET /changes?token_id=', () => {
  it('keeps only the entries made with that token, and a page costs what an unfiltered one does', async () => {
    const from = (await drain()).cursor;
    const mine: string[] = [];
    for (let i = 0; i < 6; i++) {
      const t = i % 3 === 0 ? token : other;
      const res = await send('POST', '/applications', applicant(`filter-${i}`), t);
      if (t === token) mine.push(res.body.id);
    }
    const filtered = await drain(from, `&token_id=${tokenId}`);
    expect(filtered.entries.map((e) => e.id)).toEqual(mine);
    expect(filtered.entries.every((e) => e.actor.token_id === tokenId)).toBe(true);
    // Nothing is missed or stalls: the filtered reader ends where an unfiltered one does.
    expect(filtered.cursor).toBe((await drain(from)).cursor);

    const page = await countCalls(() => changes(`after=${encodeURIComponent(from)}&token_id=${otherId}`));
    expect(page.result.body.entries).toHaveLength(4);
    expect(page.roundTrips).toBeLessThanOrEqual(3);
  });

  it('a malformed token id is a 400 field error', async () => {
    for (const bad of ['xyz', 'ABCDEF012345'.toLowerCase().slice(0, 11), 'hr_secret']) {
      const res = await changes(`token_id=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ token_id: ['is invalid'] });
    }
  });
});

describe('entry size', () => {
  it('the audit fields add at most 200 bytes to an entry, with the longest token name and request id', async () => {
    const longName = 'n'.repeat(64);
    const longToken = (await createToken(BUSINESS, { name: longName })).token;
    const app = await send('POST', '/applications', applicant('size'), longToken);
    const put = await send(
      'PUT',
      `/applications/${app.body.id}`,
      { first_name: 'Sized', last_name: 'Entry', phone: '+39 3' },
      longToken,
    );
    expect(put.status).toBe(200);
    const lane = laneOf('application', app.body.id);
    const counter = await getItem(keys.feedCounter(BUSINESS, lane));
    const entry = (await getItem(keys.feedEntry(BUSINESS, lane, Number(counter!.n))))!;
    // DynamoDB's item size: attribute name bytes + value bytes.
    const audit = ['by', 'rid', 'cf'].reduce(
      (sum, name) => sum + Buffer.byteLength(name) + Buffer.byteLength(String(entry[name] ?? '')),
      0,
    );
    expect(entry.cf).toBe('first_name,last_name,phone');
    expect(audit).toBeLessThanOrEqual(200);
    console.log(`audit fields of an application.updated entry (64-character token name, 3 fields): ${audit} bytes`);
  });
});
