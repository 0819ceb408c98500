/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies, feed entries and file lines are arbitrary JSON */
import demo from '../../fixtures/demo.json';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../src/data/dynamo/client';
import { tableName } from '../../src/data/config';
import { token as tokenEntity } from '../../src/data/entities/token';
import { createToken, hashToken, revokeToken } from '../../src/data/token-store';
import { SCOPES, type Scope } from '../../src/domain/scopes';
import type { FieldGrants, GrantType } from '../../src/domain/token-view';
import { TYPE_FIELDS } from '../../src/services/token-view';
import { startLocalDispatcher } from '../../src/services/webhook-dispatcher';
import { runImport } from '../../src/services/import-run';
import { handler as runImportFunction } from '../../functions/run-import';
import '../../src/services/feed-wiring';
import { API, countCalls, startApi, type ApiResponse, type TestApi } from '../support/harness';
import { objectCreatedEvent, uploadAs } from '../support/attachment-upload';
import { startLoopbackReceiver } from '../support/loopback-receiver';
import { until } from '../support/until';
import { TOKEN_ROUTES, createSampleRecords, exportDone, sampleRequest, successStatus } from '../support/route-samples';

/**
 * Contract §25 against the local stack: read scopes in the change feed, webhook
 * deliveries, exports and imports (the reproductions), and field grants
 * on every way a record leaves the service: single and list responses, feed
 * pages, webhook bodies, export lines, and writes and import rows limited to
 * the grant. Each way is tried with a grant and without one.
 */
jest.setTimeout(120_000);

const BUSINESS = 'grants';
let api: TestApi;
let full: string;
let stopDispatcher: () => Promise<void>;
const dispatcherErrors: unknown[] = [];

beforeAll(async () => {
  api = await startApi();
  full = await api.provision({ ...demo, business: { ...demo.business, id: BUSINESS } });
  stopDispatcher = startLocalDispatcher(50, undefined, (error) => dispatcherErrors.push(error));
});
afterAll(async () => {
  await stopDispatcher();
  await api.close();
});
afterEach(() => expect(dispatcherErrors).toEqual([]));

const tokenWith = async (scopes: readonly Scope[], fields?: FieldGrants): Promise<string> =>
  (await createToken(BUSINESS, { name: 'grants-test', scopes, ...(fields ? { fields } : {}) })).token;

const send = (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) =>
  api.request(method, `${API}${path}`, { token, headers, ...(body !== undefined ? { body } : {}) });

let n = 0;
const applicant = (extra: Record<string, unknown> = {}) => ({
  first_name: 'Grant',
  last_name: `Applicant${++n}`,
  email: `grant-${n}@example.com`,
  phone: '+39 0471 123456',
  accept_terms_and_conditions: true,
  job_id: 'cook-2026',
  ...extra,
});

/** The feed from `after` to its head, as `token` reads it. */
async function feedOf(token: string, after: string, query = ''): Promise<any[]> {
  const entries: any[] = [];
  for (let cursor = after; ;) {
    const page = await send('GET', `/changes?after=${cursor}&limit=100${query}`, token);
    expect(page.status).toBe(200);
    entries.push(...page.body.entries);
    if (page.body.next_cursor === cursor) return entries;
    cursor = page.body.next_cursor;
  }
}
const head = async (): Promise<string> => (await send('GET', '/changes?limit=1', full)).body.next_cursor;

async function feedHead(): Promise<string> {
  let cursor = await head();
  for (;;) {
    const page = await send('GET', `/changes?after=${cursor}&limit=100`, full);
    if (page.body.next_cursor === cursor) return cursor;
    cursor = page.body.next_cursor;
  }
}

async function exportLines(token: string, types: string[]): Promise<{ id: string; lines: any[] }> {
  const started = await send('POST', '/exports', token, { types });
  expect(started.status).toBe(202);
  const id = started.body.id as string;
  await exportDone(api, token, id);
  const shown = await send('GET', `/exports/${id}`, token);
  expect(shown.body.status).toBe('completed');
  const text = await (await fetch(shown.body.download_url)).text();
  return {
    id,
    lines: text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  };
}

/** Every key of every object in a JSON value, however deep. */
function keysIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keysIn(v, into));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysIn(v, into);
    }
  return into;
}

describe('read scopes bind everywhere a record shows (the issue reproductions)', () => {
  test('the change feed holds only entries of types the token may read; a types filter of another is 403', async () => {
    const from = await feedHead();
    const reader = await tokenWith(['changes:read', 'employees:read']);
    const app = await send('POST', '/applications', full, applicant());
    expect(app.status).toBe(201);
    expect((await send('PUT', `/applications/${app.body.id}`, full, { phone: '+39 1' })).status).toBe(200);
    const employee = await send('POST', '/employees', full, { first_name: 'Feed', last_name: 'Reader' });

    const seen = await feedOf(reader, from);
    expect(seen.map((e) => e.type)).toEqual(['employee.created']);
    expect(seen[0].id).toBe(employee.body.id);
    // Everything was there to be read: the full token sees the application's entries too.
    expect((await feedOf(full, from)).map((e) => e.type)).toEqual([
      'application.created',
      'application.updated',
      'employee.created',
    ]);

    const filtered = await send('GET', `/changes?after=${from}&types=application.created`, reader);
    expect(filtered.status).toBe(403);
    expect(filtered.body).toMatchObject({
      error: 'insufficient_scope',
      message: 'This token lacks the scope applications:read',
    });
    expect((await send('GET', `/changes?after=${from}&types=employee.created`, reader)).status).toBe(200);
  });

  test('GET /exports/{id} needs the read scope of every type the export holds', async () => {
    expect((await send('POST', '/applications', full, applicant())).status).toBe(201);
    const { id, lines } = await exportLines(full, ['applications']);
    expect(lines.length).toBeGreaterThan(0);
    const feedOnly = await tokenWith(['changes:read']);
    const refused = await send('GET', `/exports/${id}`, feedOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('This token lacks the scope applications:read');
    expect(refused.text).not.toContain('download_url');
    expect((await send('GET', `/exports/${id}`, await tokenWith(['changes:read', 'applications:read']))).status).toBe(
      200,
    );
  });

  test('a subscription delivers only what its token may read, and nothing once the token is revoked', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      const manager = await tokenWith(['webhooks:manage', 'employees:read']);
      const sub = await send('POST', '/webhook_subscriptions', manager, { url: receiver.url });
      expect(sub.status).toBe(201);
      const app = await send('POST', '/applications', full, applicant());
      const employee = await send('POST', '/employees', full, { first_name: 'Hook', last_name: 'One' });
      await until(() => receiver.received.length >= 1, 'the employee.created delivery');
      // The application came first in the feed: had it been delivered, it would be here before the employee.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const bodies = receiver.received.map((d) => JSON.parse(d.body));
      expect(bodies.map((b) => [b.type, b.id])).toEqual([['employee.created', employee.body.id]]);
      expect(receiver.received.map((d) => d.body).join('\n')).not.toContain(app.body.email);

      expect(await revokeToken(manager)).toBe(true);
      await send('POST', '/employees', full, { first_name: 'Hook', last_name: 'Two' });
      const shown = () => send('GET', `/webhook_subscriptions/${sub.body.id}`, full);
      for (let i = 0; (await shown()).body.status !== 'disabled'; i++) {
        if (i > 150) throw new Error('the subscription was not disabled');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect((await shown()).body).toMatchObject({ status: 'disabled', last_delivery_error: 'token_revoked' });
      await send('POST', '/employees', full, { first_name: 'Hook', last_name: 'Three' });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  test('a subscription whose token expired is disabled token_revoked and receives nothing more', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      const manager = await tokenWith(['webhooks:manage', 'employees:read']);
      const sub = await send('POST', '/webhook_subscriptions', manager, { url: receiver.url });
      expect(sub.status).toBe(201);
      // The token expires (its stored expiry moves into the past; it is not deleted).
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: tokenEntity.key(hashToken(manager)),
          UpdateExpression: 'SET expires_at = :past',
          ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 60 },
        }),
      );
      await send('POST', '/employees', full, { first_name: 'Ex', last_name: 'Pired' });
      const shown = () => send('GET', `/webhook_subscriptions/${sub.body.id}`, full);
      for (let i = 0; (await shown()).body.status !== 'disabled'; i++) {
        if (i > 150) throw new Error('the subscription was not disabled');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect((await shown()).body).toMatchObject({ status: 'disabled', last_delivery_error: 'token_revoked' });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  test('an import whose token is revoked fails token_revoked; rows applied before stay counted', async () => {
    const importer = await tokenWith(['employees:write', 'employees:read']);
    // More rows than a paused run's windows apply, so that the second run would have rows left to apply.
    const rows = Array.from({ length: 150 }, (_, i) => `Revoked,Row${i},rev-${i}`).join('\n');
    const file = Buffer.from(`first_name,last_name,external_id\n${rows}\n`);
    const create = async () => {
      const created = await send('POST', '/imports', importer, {
        type: 'employees',
        format: 'csv',
        mode: 'apply',
        size: file.length,
      });
      expect(created.status).toBe(201);
      expect(await uploadAs(created.body.upload, file)).toBe(204);
      return created.body;
    };
    // A run that stops after its first rows (no time left), then the token goes: the next run fails the import.
    const first = await create();
    expect(await runImport(BUSINESS, first.id, { timeLeftMs: () => 0 })).toEqual({ outcome: 'paused' });
    const paused = (await send('GET', `/imports/${first.id}`, full)).body;
    expect(paused.counts.created).toBeGreaterThan(0);
    expect(paused.counts.created).toBeLessThan(150);
    expect(await revokeToken(importer)).toBe(true);
    await runImportFunction(objectCreatedEvent(first.upload.fields.key, file.length));
    const failed = (await send('GET', `/imports/${first.id}`, full)).body;
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'token_revoked' });
    // The counts are the rows applied before the token went (those of the paused run, whose counts on record lag
    // its stored results), no more: the second run applied nothing.
    let applied = 0;
    for (let page = 1; ; page++) {
      const listed = (await send('GET', `/employees?per_page=100&page=${page}`, full)).body.entries as {
        first_name: string;
      }[];
      applied += listed.filter((e) => e.first_name === 'Revoked').length;
      if (listed.length < 100) break;
    }
    expect(applied).toBeGreaterThanOrEqual(paused.counts.created);
    expect(applied).toBeLessThan(150);
    expect(failed.counts.created).toBe(applied);
  });

  test('a file uploaded after its import’s token was revoked is not applied', async () => {
    const importer = await tokenWith(['employees:write']);
    const file = Buffer.from('first_name,last_name\nLate,Upload\n');
    const created = await send('POST', '/imports', importer, {
      type: 'employees',
      format: 'csv',
      mode: 'apply',
      size: file.length,
    });
    expect(created.status).toBe(201);
    expect(await revokeToken(importer)).toBe(true);
    expect(await uploadAs(created.body.upload, file)).toBe(204);
    await runImportFunction(objectCreatedEvent(created.body.upload.fields.key, file.length));
    const shown = (await send('GET', `/imports/${created.body.id}`, full)).body;
    expect(shown).toMatchObject({ status: 'failed', failure_reason: 'token_revoked' });
    expect(shown.counts.created).toBe(0);
  });
});

/** A grant of every field of each type but these: each is withheld from every type that has it, and no other response holds it. */
const WITHHELD: Record<GrantType, string[]> = {
  employees: ['iban', 'swift', 'tax_number', 'birthday', 'gender'],
  employee_jobs: ['notes', 'time_table', 'classification'],
  applications: ['birthday', 'gender', 'campaign_id', 'accept_archivation'],
};
const allBut = (type: GrantType): string[] => TYPE_FIELDS[type].filter((f) => !WITHHELD[type].includes(f));
const MARKERS = new Set(Object.values(WITHHELD).flat());

describe('field grants on every way out (contract §25)', () => {
  let granted: string;
  beforeAll(async () => {
    granted = await tokenWith(SCOPES, {
      employees: allBut('employees'),
      employee_jobs: allBut('employee_jobs'),
      applications: allBut('applications'),
    });
  });

  test('every route of the route table answers no withheld field; the routes that answer records say so', async () => {
    const ids = await createSampleRecords(api, full, { doomed: 1 });
    const carriers: string[] = [];
    for (const route of TOKEN_ROUTES) {
      // A sample per send: a create's unique values are new each time.
      const send_ = (token: string): Promise<ApiResponse> => {
        const sample = sampleRequest(route, ids);
        return api.request(sample.method, sample.path, { token, body: sample.body, headers: sample.headers ?? {} });
      };
      const withGrant = await send_(granted);
      expect({ route: route.name, status: withGrant.status }).toEqual({
        route: route.name,
        // The sample export was written for a token without a grant: a granted token may not download it.
        status: route.name === 'get-export' ? 403 : successStatus(route),
      });
      const leaked = [...keysIn(withGrant.body)].filter((k) => MARKERS.has(k));
      expect({ route: route.name, leaked }).toEqual({ route: route.name, leaked: [] });
      if (route.method === 'DELETE') continue; // answers no body; sent once (a second is 404 or 409)
      const withoutGrant = await send_(full);
      if ([...keysIn(withoutGrant.body)].some((k) => MARKERS.has(k))) {
        carriers.push(route.name);
        // What it withheld, it names (a feed page beside each entry's data); a token without a grant is told nothing.
        const named = (r: ApiResponse): unknown =>
          route.name === 'list-changes'
            ? r.body.entries.some((e: any) => e.restricted_fields !== undefined)
            : r.headers.get('restricted-fields');
        expect({ route: route.name, named: named(withGrant) }).toEqual({
          route: route.name,
          named: route.name === 'list-changes' ? true : expect.stringMatching(/\S/),
        });
        expect({ route: route.name, named: named(withoutGrant) }).toEqual({
          route: route.name,
          named: route.name === 'list-changes' ? false : null,
        });
      }
    }
    // The check above can fail: these routes carry the marker fields to a token without a grant.
    expect(carriers.sort()).toEqual(
      [
        'create-application',
        'create-employee',
        'create-employee-job',
        'get-application',
        'get-employee',
        'get-employee-job',
        'list-applications',
        'list-changes',
        'list-employee-jobs',
        'list-employees',
        'update-application',
        'update-employee',
      ].sort(),
    );
  });

  test('a payroll token and a time-tracking token see what their grants say, nothing else', async () => {
    const payroll = await tokenWith(['employees:read', 'changes:read'], {
      employees: ['first_name', 'last_name', 'employee_number', 'iban', 'swift', 'tax_number', 'cf_12'],
    });
    const timeTracking = await tokenWith(['employees:read', 'applications:read'], {
      employees: ['first_name', 'last_name', 'location_id'],
      employee_jobs: ['name', 'from', 'to', 'time_hours', 'time_type'],
    });
    const made = await send('POST', '/employees', full, {
      first_name: 'Paula',
      last_name: 'Roll',
      employee_number: `P-${Date.now()}`,
      iban: 'DE89370400440532013000',
      tax_number: '12/345/67890',
      birthday: '1990-02-03',
      city: 'Bozen',
      cf_12: 'x',
    });
    expect(made.status).toBe(201);
    const id = made.body.id as string;

    const seen = await send('GET', `/employees/${id}`, payroll);
    expect(seen.status).toBe(200);
    expect(Object.keys(seen.body).sort()).toEqual(
      [
        'id',
        'created_at',
        'updated_at',
        'first_name',
        'last_name',
        'employee_number',
        'iban',
        'swift',
        'tax_number',
        'cf_12',
      ].sort(),
    );
    expect(seen.body.swift).toBeNull(); // granted and empty: null, unlike a withheld field
    const restricted = seen.headers.get('restricted-fields')!.split(', ');
    expect(restricted).toEqual([...restricted].sort());
    expect(restricted).toEqual(expect.arrayContaining(['birthday', 'city', 'email']));
    expect(restricted).not.toEqual(expect.arrayContaining(['iban']));
    // The ETag is the record's version: the same for the full token.
    expect(seen.headers.get('etag')).toBe((await send('GET', `/employees/${id}`, full)).headers.get('etag'));

    const tt = await send('GET', `/employees/${id}`, timeTracking);
    expect(Object.keys(tt.body).sort()).toEqual(
      ['id', 'created_at', 'updated_at', 'first_name', 'last_name', 'location_id'].sort(),
    );
    expect(tt.text).not.toContain('DE89370400440532013000');
    const page = await send('GET', '/employees?per_page=3', timeTracking);
    expect(page.headers.get('restricted-fields')).toContain('iban');
    for (const e of page.body.entries)
      expect(Object.keys(e).sort()).toEqual(
        ['id', 'created_at', 'updated_at', 'first_name', 'last_name', 'location_id'].sort(),
      );
    // Applications: no grant of that type, every field, no header.
    const apps = await send('GET', '/applications?per_page=1', timeTracking);
    expect(apps.headers.get('restricted-fields')).toBeNull();
    expect(apps.body.entries[0]).toHaveProperty('email');
    // A token without a grant: every field, no header.
    const plain = await send('GET', `/employees/${id}`, full);
    expect(plain.headers.get('restricted-fields')).toBeNull();
    expect(plain.body).toMatchObject({ iban: 'DE89370400440532013000', birthday: '1990-02-03', city: 'Bozen' });
  });

  test('grants cost no DynamoDB call: a granted token’s reads and writes make the calls an ungranted one makes', async () => {
    const scopes: Scope[] = ['employees:read', 'employees:write', 'applications:read', 'changes:read'];
    const plain = await tokenWith(scopes);
    const narrow = await tokenWith(scopes, {
      employees: ['first_name', 'last_name', 'city'],
      applications: ['first_name'],
    });
    const made = await send('POST', '/employees', full, { first_name: 'Co', last_name: 'St' });
    const cost = async (token: string): Promise<number[]> => {
      const calls: number[] = [];
      for (const [method, path, body] of [
        ['GET', `/employees/${made.body.id}`],
        ['GET', '/employees?per_page=5'],
        ['GET', '/applications?per_page=5'],
        ['GET', '/changes?limit=20'],
        ['PUT', `/employees/${made.body.id}`, { city: `C${Date.now()}` }],
      ] as const) {
        const { result, calls: n } = await countCalls(() => send(method, path, token, body));
        expect(result.status).toBe(200);
        calls.push(n);
      }
      return calls;
    };
    // The dispatcher's polls would count among the calls: paused meanwhile.
    await stopDispatcher();
    try {
      // Warm first (list page hints, the config kept per instance), then measured alike, one after the other.
      await cost(plain);
      await cost(narrow);
      const without = await cost(plain);
      expect(await cost(narrow)).toEqual(without);
    } finally {
      stopDispatcher = startLocalDispatcher(50, undefined, (error) => dispatcherErrors.push(error));
    }
  });

  test('feed entries hold granted fields only, name the rest, and list granted changed_fields', async () => {
    const from = await feedHead();
    const payroll = await tokenWith(['changes:read', 'employees:read'], {
      employees: ['first_name', 'last_name', 'iban'],
    });
    const made = await send('POST', '/employees', full, { first_name: 'Fe', last_name: 'Ed', city: 'Meran' });
    await send('PUT', `/employees/${made.body.id}`, full, { city: 'Brixen', iban: 'DE89370400440532013000' });
    const seen = await feedOf(payroll, from);
    expect(seen.map((e) => e.type)).toEqual(['employee.created', 'employee.updated']);
    for (const entry of seen) {
      expect(Object.keys(entry.data).sort()).toEqual([
        'created_at',
        'first_name',
        'iban',
        'id',
        'last_name',
        'updated_at',
      ]);
      expect(entry.restricted_fields).toEqual(expect.arrayContaining(['city', 'swift']));
      expect(entry.restricted_fields).toEqual([...entry.restricted_fields].sort());
      expect(entry.restricted_fields).not.toContain('iban');
    }
    expect(seen[1].changed_fields).toEqual(['iban']);
    const plain = await feedOf(full, from);
    expect(plain[1].changed_fields).toEqual(['city', 'iban']);
    expect(plain[1]).not.toHaveProperty('restricted_fields');
    expect(plain[1].data.city).toBe('Brixen');
  });

  test('webhook bodies hold what the subscription’s token may see', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      const manager = await tokenWith(['webhooks:manage', 'applications:read'], {
        applications: ['first_name', 'application_status_id'],
      });
      const sub = await send('POST', '/webhook_subscriptions', manager, {
        url: receiver.url,
        types: ['application.created'],
      });
      expect(sub.status).toBe(201);
      const app = await send('POST', '/applications', full, applicant());
      await until(() => receiver.received.length >= 1, 'the application.created delivery');
      const body = JSON.parse(receiver.received[0]!.body);
      expect(body).toMatchObject({ type: 'application.created', id: app.body.id });
      expect(Object.keys(body.data).sort()).toEqual(
        ['application_status_id', 'created_at', 'first_name', 'id', 'updated_at'].sort(),
      );
      expect(body.restricted_fields).toEqual(expect.arrayContaining(['email', 'last_name', 'phone']));
      expect(receiver.received[0]!.body).not.toContain(app.body.email);
    } finally {
      await receiver.close();
    }
  });

  test('export lines hold what the exporting token may see, with restricted_fields', async () => {
    const exporter = await tokenWith(['changes:read', 'employees:read'], {
      employees: ['first_name'],
      employee_jobs: ['name'],
    });
    const employee = await send('POST', '/employees', full, { first_name: 'Ex', last_name: 'Port', iban: null });
    await send('POST', '/employee_jobs', full, { employee_id: employee.body.id, name: 'Cook', from: '2026-01-01' });
    const { lines } = await exportLines(exporter, ['employees', 'employee_jobs']);
    expect(lines.map((l) => l.type)).toEqual(expect.arrayContaining(['employee', 'employee_job']));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const keys = Object.keys(line.data).sort();
      if (line.type === 'employee') expect(keys).toEqual(['created_at', 'first_name', 'id', 'updated_at']);
      else expect(keys).toEqual(['created_at', 'employee_id', 'id', 'name', 'updated_at']);
      expect(line.restricted_fields).toEqual(expect.arrayContaining([line.type === 'employee' ? 'iban' : 'from']));
      expect(line.restricted_fields).toEqual([...line.restricted_fields].sort());
    }
    const plain = await exportLines(full, ['employees']);
    expect(plain.lines[0]).not.toHaveProperty('restricted_fields');
    expect(plain.lines[0].data).toHaveProperty('iban');
    // The file holds what its creator saw: a token whose grant withholds more may not download it.
    const narrow = await tokenWith(['changes:read', 'employees:read'], { employees: ['first_name', 'last_name'] });
    const refused = await send('GET', `/exports/${plain.id}`, narrow);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope' });
    expect(refused.body.message).toContain('field grant');
    expect(refused.text).not.toContain('download_url');
    // Its own export, and one written with the same grant or a narrower one, it may read.
    expect((await send('GET', `/exports/${plain.id}`, full)).status).toBe(200);
  });

  test('a filter on a withheld field is 400 is not permitted', async () => {
    const recruiter = await tokenWith(['applications:read'], { applications: ['first_name', 'last_name'] });
    const refused = await send('GET', '/applications?job_id=cook-2026', recruiter, undefined, {
      'accept-language': 'de',
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ job_id: ['ist nicht erlaubt'] });
    const byStatus = await send('GET', '/applications?application_status_id=new', recruiter);
    expect(byStatus.body).toEqual({ application_status_id: ['is not permitted'] });
    expect((await send('GET', '/applications?updated_at_since=2026-01-01', recruiter)).status).toBe(200);
  });

  test('writes name granted fields only: 422 is not permitted, nothing written', async () => {
    const writer = await tokenWith(['employees:write', 'employees:read', 'applications:write'], {
      employees: ['first_name', 'last_name', 'city'],
      applications: ['first_name', 'last_name', 'email'],
    });
    const made = await send('POST', '/employees', writer, { first_name: 'Wri', last_name: 'Ter', city: 'Bozen' });
    expect(made.status).toBe(201);
    expect(Object.keys(made.body).sort()).toEqual([
      'city',
      'created_at',
      'first_name',
      'id',
      'last_name',
      'updated_at',
    ]);
    const before = await send('GET', `/employees/${made.body.id}`, full);

    const put = await send(
      'PUT',
      `/employees/${made.body.id}`,
      writer,
      { city: 'Meran', iban: 'DE89370400440532013000' },
      { 'accept-language': 'it' },
    );
    expect(put.status).toBe(422);
    expect(put.body).toEqual({ iban: ['non è consentito'] });
    expect((await send('GET', `/employees/${made.body.id}`, full)).body).toEqual(before.body);

    const post = await send('POST', '/employees', writer, { first_name: 'A', last_name: 'B', tax_number: '1' });
    expect(post.body).toEqual({ tax_number: ['is not permitted'] });
    // A create whose mandatory fields are not all granted cannot succeed, and says so the same way.
    const app = await send('POST', '/applications', writer, { first_name: 'A', last_name: 'B', email: 'a@b.example' });
    expect(app.status).toBe(422);
    expect(app.body).toEqual({ accept_terms_and_conditions: ['is not permitted'] });
    expect((await send('PUT', `/employees/${made.body.id}`, writer, { city: 'Meran' })).status).toBe(200);
  });

  test('a create whose required custom field the grant lacks says is not permitted', async () => {
    const id = 'grants-required';
    const fields = demo.employee_fields.map((f) => (f.id === '12' ? { ...f, required: true } : f));
    await api.provision({ ...demo, business: { ...demo.business, id }, employee_fields: fields });
    const writer = (
      await createToken(id, { scopes: ['employees:write'], fields: { employees: ['first_name', 'last_name'] } })
    ).token;
    const refused = await send('POST', '/employees', writer, { first_name: 'No', last_name: 'Shoes' });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ cf_12: ['is not permitted'] });
    // A token that may send it is told it is blank, as before.
    const plain = (await createToken(id, { scopes: ['employees:write'] })).token;
    expect((await send('POST', '/employees', plain, { first_name: 'No', last_name: 'Shoes' })).body).toEqual({
      cf_12: ["can't be blank"],
    });
  });

  test('import rows naming a field outside the grant fail is not permitted; the others apply', async () => {
    const importer = await tokenWith(['employees:write', 'employees:read'], {
      employees: ['first_name', 'last_name'],
    });
    const file = Buffer.from('first_name,last_name,iban\nIm,Ported,\nIm,Banned,DE89370400440532013000\n');
    const created = await send(
      'POST',
      '/imports',
      importer,
      { type: 'employees', format: 'csv', mode: 'apply', size: file.length },
      { 'accept-language': 'de' },
    );
    expect(created.status).toBe(201);
    expect(await uploadAs(created.body.upload, file)).toBe(204);
    await runImportFunction(objectCreatedEvent(created.body.upload.fields.key, file.length));
    const shown = (await send('GET', `/imports/${created.body.id}`, importer)).body;
    expect(shown).toMatchObject({ status: 'completed', counts: { rows: 2, created: 1, failed: 1 } });
    const results = (await (await fetch(shown.results_url)).text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(results[1]).toMatchObject({ row: 2, result: 'failed', errors: { iban: ['ist nicht erlaubt'] } });
  });
});
