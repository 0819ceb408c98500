/**
 * The TypeScript client (contract §23) against the local stack: the server's handlers, DynamoDB Local, the local
 * S3 server and the webhook dispatcher. Every operation of the served document is called through it at least
 * once; retries, waits and aborts are checked on real answers (a 503 after an applied write is what a gateway
 * answers when the function finished but its answer was lost: the test's fetch plays that gateway).
 */
import { createHash } from 'node:crypto';
import demo from '../../fixtures/demo.json';
import {
  ApiError,
  AuthError,
  ConflictError,
  createClient,
  NotFoundError,
  RateLimitError,
  ValidationError,
  verifyWebhook,
  type ChangeEntry,
  type Client,
} from '../../client/src/index';
import { OPERATIONS } from '../../client/src/operations';
import { handler as checkAttachment } from '../../functions/check-attachment';
import { handler as runImportFunction } from '../../functions/run-import';
import { advanceClock } from '../support/rate-clock';
import { pumpSubscription } from '../../src/services/webhook-dispatcher';
import { createToken } from '../../src/data/token-store';
import '../../src/services/feed-wiring';
import { objectCreatedEvent } from '../support/attachment-upload';
import { startApi, type TestApi } from '../support/harness';
import { startLoopbackReceiver } from '../support/loopback-receiver';

const BUSINESS = 'clientco';
const fixture = (id: string, extra: object = {}) => ({ ...demo, business: { ...demo.business, id, ...extra } });

let api: TestApi;
let token: string;
let client: Client;
/** Every request the clients of this file sent: the operation it matched (or `upload`), method and key. */
const sent: { operation: string; method: string; idempotencyKey: string | null }[] = [];

const TEMPLATES = Object.entries(OPERATIONS).map(([operation, [method, path]]) => ({
  operation,
  method,
  pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
}));

/**
 * The fetch every client of this file uses: records each request and, after an upload to the local S3 server,
 * delivers the object-created event S3 would send to the attachment check or the import run (the shared local S3
 * server sends its own events to the process that started it, jest's global setup).
 */
const recordingFetch =
  (inner: typeof fetch = fetch): typeof fetch =>
  async (input, init) => {
    const url = new URL(String(input));
    const method = init?.method ?? 'GET';
    const headers = new Headers(init?.headers);
    const match = TEMPLATES.find((t) => t.method === method && t.pattern.test(url.pathname));
    sent.push({ operation: match?.operation ?? 'upload', method, idempotencyKey: headers.get('idempotency-key') });
    const res = await inner(input, init);
    if (!match && res.status === 204 && init?.body instanceof FormData) {
      const key = String(init.body.get('key'));
      const file = init.body.get('file') as Blob;
      const event = objectCreatedEvent(key, file.size);
      await (key.startsWith('imports/') ? runImportFunction(event) : checkAttachment(event));
    }
    return res;
  };

const newClient = (options: Partial<Parameters<typeof createClient>[0]> = {}): Client =>
  createClient({ baseUrl: api.baseUrl, token, fetch: recordingFetch(), ...options });

beforeAll(async () => {
  api = await startApi();
  token = await api.provision(fixture(BUSINESS));
  client = newClient();
}, 60_000);
afterAll(() => api.close());

describe('every operation of the document', () => {
  it('is a typed method that answers the parsed body, and each runs against the local stack', async () => {
    const employee = await client.createEmployee({
      body: { first_name: 'Anna', last_name: 'Huber', gender: 'female' },
    });
    expect(employee).toMatchObject({ first_name: 'Anna', last_name: 'Huber', gender: 'female' });
    expect(await client.getEmployee({ id: employee.id })).toEqual(employee);
    const updated = await client.updateEmployee({ id: employee.id, body: { phone: '+39 0471 000000' } });
    expect(updated.phone).toBe('+39 0471 000000');
    expect((await client.listEmployees({ per_page: 1 })).per_page).toBe(1);

    const job = await client.createEmployeeJob({
      body: { employee_id: employee.id, name: 'Cook', from: '2026-01-01' },
    });
    expect(await client.getEmployeeJob({ id: job.id })).toEqual(job);
    const jobs = await client.listEmployeeJobs({ employee_id: employee.id });
    expect(jobs.entries.map((j) => j.id)).toEqual([job.id]);

    const payout = await client.listEmployeePayoutFields({ per_page: 2 });
    expect(payout.total_entries).toBe(demo.employee_payout_fields.length);
    const firstPayout = payout.entries[0]!;
    expect(await client.getEmployeePayoutField({ id: firstPayout.id })).toEqual(firstPayout);
    const locations = await client.listLocations();
    expect(await client.getLocation({ id: 'hq' })).toEqual(locations.entries.find((l) => l.id === 'hq'));
    expect((await client.listEmployeeFields()).total_entries).toBe(demo.employee_fields.length);
    expect((await client.listEmployeeJobFields()).total_entries).toBe(demo.employee_job_fields.length);
    expect((await client.listApplicationFields()).total_entries).toBe(demo.application_fields.length);

    const application = await client.createApplication({
      body: { first_name: 'Lena', last_name: 'Berger', email: 'lena@example.com', accept_terms_and_conditions: true },
    });
    expect(await client.getApplication({ id: application.id })).toEqual(application);
    const speculative = await client.listApplications({ job_id: 'null' });
    expect(speculative.entries.map((a) => a.id)).toContain(application.id);
    await client.updateApplication({ id: application.id, body: { phone: '+39 333 1234567' } });

    const cv = new TextEncoder().encode('Lena Berger, cook\n');
    const attachment = await client.uploadAttachment(application.id, { name: 'cv.txt', type: 'text/plain', bytes: cv });
    expect(attachment).toMatchObject({ status: 'available', file_name: 'cv.txt', size: cv.length });
    const attachments = await client.listAttachments({ id: application.id });
    expect(attachments.entries.map((a) => a.id)).toEqual([attachment.id]);
    expect(await client.deleteAttachment({ id: application.id, attachment_id: attachment.id })).toBeUndefined();
    expect(await client.deleteApplication({ id: application.id })).toBeUndefined();

    const subscription = await client.createWebhookSubscription({ body: { url: 'http://127.0.0.1:9/hook' } });
    expect(subscription.secret).toMatch(/^whsec_/);
    const shown: Partial<typeof subscription> = { ...subscription };
    delete shown.secret;
    expect(await client.getWebhookSubscription({ id: subscription.id })).toMatchObject(shown);
    expect((await client.listWebhookSubscriptions()).entries.map((s) => s.id)).toContain(subscription.id);
    const resumed = await client.resumeWebhookSubscription({ id: subscription.id, body: {} });
    expect(resumed).toMatchObject({ id: subscription.id, status: 'active' });
    const { webhook_id } = await client.pingWebhookSubscription({ id: subscription.id });
    // The ping goes to the discard port: its one attempt is in the log.
    await pumpSubscription(BUSINESS, subscription.id, Date.now() + 60_000);
    const log = await client.listWebhookDeliveries({ id: subscription.id });
    expect(log.entries).toEqual([
      expect.objectContaining({ webhook_id, type: 'webhook.ping', attempt: 1, result: 'connection failed' }),
    ]);
    expect(await client.deleteWebhookSubscription({ id: subscription.id })).toBeUndefined();

    const csv = 'external_id;first_name;last_name\nx-1;Ida;Import\nx-2;;Blank\n';
    const run = await client.runImport({ type: 'employees', format: 'csv' }, csv);
    expect(run.import).toMatchObject({ status: 'completed', counts: { rows: 2, created: 1, failed: 1 } });
    const rows = [];
    for await (const row of run.results) rows.push(row);
    expect(rows).toEqual([
      { row: 1, external_id: 'x-1', result: 'created', id: expect.any(String), errors: null },
      { row: 2, external_id: 'x-2', result: 'failed', id: null, errors: { first_name: [expect.any(String)] } },
    ]);
    expect((await client.getEmployee({ id: rows[0]!.id! })).last_name).toBe('Import');
    const pending = await client.createImport({ body: { type: 'employees', format: 'jsonl', size: 10 } });
    expect((await client.listImports()).entries.map((i) => i.id)).toEqual([pending.id, run.import.id]);
    expect(await client.deleteImport({ id: pending.id })).toBeUndefined();

    const started = await client.createExport({ body: { types: ['employees'] } });
    expect((await client.getExport({ id: started.id })).id).toBe(started.id);

    const types: string[] = [];
    for await (const entry of client.changes()) types.push(entry.type);
    expect(types).toEqual(
      expect.arrayContaining(['employee.created', 'employee.updated', 'attachment.available', 'application.deleted']),
    );

    const document = await client.getOpenapi();
    expect(Object.keys(document.paths ?? {})).toContain('/services/api/v1/employees');
    expect(await client.getDocs()).toContain('<html');
  });

  it('throws ApiError with the status, code, message, fields, request id; in the language asked', async () => {
    const missing = await client.getEmployee({ id: 'nope' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({
      name: 'NotFoundError',
      status: 404,
      code: 'not_found',
      fields: null,
      retryAfter: null,
    });
    expect((missing as ApiError).requestId).toMatch(/\S/);
    const german = newClient({ language: 'de' });
    const before = sent.length;
    const invalid = await german.createEmployee({ body: { first_name: '', last_name: 'B' } }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({
      status: 422,
      code: 'unprocessable_entity',
      fields: { first_name: [expect.any(String)] },
    });
    expect((invalid as ApiError).fields!.first_name![0]).not.toBe("can't be blank");
    expect((invalid as ApiError).message).toContain('first_name');
    expect(sent.length - before).toBe(1); // a 422 is never retried
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ name: 'ValidationError' });
    // A signal aborted before the call: nothing is sent.
    await expect(client.getEmployee({ id: 'x' }, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(sent.length - before).toBe(1);
  });

  it('throws the subclass a caller branches on: AuthError, ConflictError, a 400 field map as ValidationError', async () => {
    const stranger = await newClient({ token: 'hr_unknown' })
      .getEmployee({ id: 'x' })
      .catch((e: unknown) => e);
    expect(stranger).toBeInstanceOf(AuthError);
    expect(stranger).toMatchObject({ name: 'AuthError', status: 401, code: 'unauthorized' });

    const key = `conflict-${Date.now()}`;
    await client.createEmployee({ body: { first_name: 'Con', last_name: 'Flict' } }, { idempotencyKey: key });
    const reused = await client
      .createEmployee({ body: { first_name: 'Other', last_name: 'Body' } }, { idempotencyKey: key })
      .catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(ConflictError);
    expect(reused).toMatchObject({ name: 'ConflictError', status: 409, code: 'idempotency_key_reused' });

    const badQuery = await client.listEmployees({ per_page: 1000 }).catch((e: unknown) => e);
    expect(badQuery).toBeInstanceOf(ValidationError);
    expect(badQuery).toMatchObject({ status: 400, code: 'bad_request', fields: { per_page: [expect.any(String)] } });
    for (const error of [stranger, reused, badQuery]) expect(error).toBeInstanceOf(ApiError);
  });
});

describe('paging and the feed', () => {
  it('paginate yields every record of every page once (7 records, 3 per page)', async () => {
    const created = [];
    for (let i = 0; i < 7; i++)
      created.push((await client.createEmployee({ body: { first_name: 'Page', last_name: `P${i}` } })).id);
    const before = sent.length;
    const seen: string[] = [];
    for await (const employee of client.paginate('listEmployees', { per_page: 3 })) seen.push(employee.id);
    const total = (await client.listEmployees({ per_page: 1 })).total_entries;
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen).toEqual(expect.arrayContaining(created));
    expect(sent.length - before - 1).toBe(Math.ceil(total / 3));
    expect(Math.ceil(total / 3)).toBeGreaterThanOrEqual(3);
  });

  it('changes({follow}) receives writes made while it follows, each once, in order, with a cursor to resume at', async () => {
    let head: string | undefined;
    for await (const entry of client.changes()) head = entry.cursor;
    const controller = new AbortController();
    const received: ChangeEntry[] = [];
    const ids: string[] = [];
    let wrote!: () => void;
    const allWritten = new Promise<void>((resolve) => (wrote = resolve));
    const following = (async () => {
      for await (const entry of client.changes({
        cursor: head,
        follow: true,
        intervalMs: 20,
        signal: controller.signal,
        types: ['employee.created'],
      })) {
        received.push(entry);
        if (received.length === 4) {
          await allWritten;
          controller.abort();
        }
      }
    })();
    for (let i = 0; i < 4; i++) {
      ids.push((await client.createEmployee({ body: { first_name: 'Feed', last_name: `F${i}` } })).id);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    wrote();
    await following; // ends quietly on abort
    expect(received.map((e) => [e.type, e.id])).toEqual(ids.map((id) => ['employee.created', id]));
    // Resuming at the second entry's cursor yields the third and fourth, and nothing more (types filtered).
    const rest: string[] = [];
    for await (const entry of client.changes({ cursor: received[1]!.cursor, types: ['employee.created'] }))
      rest.push(entry.id);
    expect(rest).toEqual(ids.slice(2));
  });
});

describe('retries', () => {
  it('a write whose connection dropped, then answered 503, after it was applied: retried with its key, one record', async () => {
    let attempts = 0;
    const gateway: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      attempts++;
      if (attempts === 1) throw new TypeError('fetch failed'); // applied, the answer lost
      if (attempts === 2)
        return new Response('{"error":"service_unavailable","message":"try again"}', {
          status: 503,
          headers: { 'content-type': 'application/json', 'retry-after': '0' },
        });
      return res;
    };
    const flaky = newClient({ fetch: recordingFetch(gateway) });
    const before = sent.length;
    const number = `RETRY-${Date.now()}`;
    const employee = await flaky.createEmployee({
      body: { first_name: 'Once', last_name: 'Only', employee_number: number },
    });
    const tries = sent.slice(before);
    expect(tries.map((t) => t.operation)).toEqual(['createEmployee', 'createEmployee', 'createEmployee']);
    expect(new Set(tries.map((t) => t.idempotencyKey)).size).toBe(1);
    expect(tries[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const all = [];
    for await (const e of client.paginate('listEmployees')) if (e.employee_number === number) all.push(e);
    expect(all).toEqual([employee]);
  });

  it('a caller key is the one sent; a timeout is retried, then thrown as ApiError timeout', async () => {
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
    const slow = newClient({ fetch: recordingFetch(hanging), timeoutMs: 20, maxRetries: 1 });
    const before = sent.length;
    const error = await slow
      .createEmployee({ body: { first_name: 'A', last_name: 'B' } }, { idempotencyKey: 'my-key-1' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ApiError', status: 0, code: 'timeout' });
    expect(sent.slice(before).map((s) => s.idempotencyKey)).toEqual(['my-key-1', 'my-key-1']);
  });
});

describe('a tiny rate limit (2 requests per 10 s)', () => {
  let limited: string;
  beforeAll(async () => {
    limited = await api.provision(fixture('clientrl', { token_rate_limit: { requests: 2, window_seconds: 10 } }));
  });

  it('r=0 makes the next request wait; a 429 is waited out; maxRetries 0 throws rate_limited; an abort ends a wait', async () => {
    /** A client of the limited token whose answers' statuses are kept in `statuses`. */
    const watched = (options: Partial<Parameters<typeof createClient>[0]> = {}) => {
      const statuses: number[] = [];
      let answered = (): void => undefined;
      /** Resolves when the next answer has reached the client. */
      const nextAnswer = () => new Promise<void>((resolve) => (answered = resolve));
      const watching: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        statuses.push(res.status);
        answered();
        return res;
      };
      return {
        statuses,
        nextAnswer,
        client: newClient({ token: limited, fetch: recordingFetch(watching), ...options }),
      };
    };
    const patient = watched();
    await patient.client.getLocation({ id: 'hq' });
    // The server's rate clock moves on 8.5 s (the local server runs in this process): the window's first admission
    // leaves it 1.5 s after the second, so the waits below are real but short.
    advanceClock(8_500);
    await patient.client.getLocation({ id: 'hq' }); // RateLimit: "token";r=0;t=2
    const exhaustedAt = Date.now();
    expect(patient.statuses).toEqual([200, 200]);

    // Another client knows nothing of that field: answered 429, it throws at once with maxRetries 0 ...
    const impatient = watched({ maxRetries: 0 });
    const refused = await impatient.client.getLocation({ id: 'hq' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'RateLimitError', status: 429, code: 'rate_limited' });
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).retryAfter).toBeGreaterThanOrEqual(1);
    expect(impatient.statuses).toEqual([429]);
    // ... and an abort during the wait for Retry-After (at least 1 s) ends it at once: the call rejects before the
    // event loop turns again, so no timer of the wait (nor any other) fired in between, and nothing more is sent.
    const aborted = watched();
    const controller = new AbortController();
    const answer = aborted.nextAnswer();
    const waiting = aborted.client.getLocation({ id: 'hq' }, { signal: controller.signal });
    const outcome = waiting.then(
      () => 'answered',
      (error: unknown) => error,
    );
    await answer;
    await new Promise((resolve) => setTimeout(resolve, 50)); // the client is in its wait now
    controller.abort();
    const nextTurn = new Promise((resolve) => setImmediate(() => resolve('still waiting')));
    expect(await Promise.race([outcome, nextTurn])).toMatchObject({ name: 'AbortError' });
    expect(aborted.statuses).toEqual([429]);

    // The first client waits out the window before it sends (no 429) ...
    expect((await patient.client.getLocation({ id: 'hq' })).id).toBe('hq');
    expect(patient.statuses).toEqual([200, 200, 200]);
    expect(Date.now() - exhaustedAt).toBeGreaterThanOrEqual(1000);
    // ... and, the window full again until 7 s later (moved on), a fresh client waits out its 429's Retry-After.
    advanceClock(7_000);
    const fresh = watched();
    expect((await fresh.client.getLocation({ id: 'hq' })).id).toBe('hq');
    expect(fresh.statuses).toEqual([429, 200]);
  }, 20_000);
});

describe('webhooks', () => {
  it('verifies a real delivery of the dispatcher: as text, bytes and an API Gateway event (base64); refuses a forgery', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      const subscription = await client.createWebhookSubscription({
        body: { url: receiver.url, types: ['employee.created'] },
      });
      const employee = await client.createEmployee({ body: { first_name: 'Hook', last_name: 'Ed' } });
      expect(await pumpSubscription(BUSINESS, subscription.id, Date.now() + 60_000)).toEqual({ state: 'idle' });
      expect(receiver.received).toHaveLength(1);
      const { headers, body } = receiver.received[0]!;
      const event = await verifyWebhook(subscription.secret, { headers, body });
      expect(event).toMatchObject({ type: 'employee.created', id: employee.id, data: employee });
      expect(await verifyWebhook(subscription.secret, { headers, body: new TextEncoder().encode(body) })).toEqual(
        event,
      );
      const gatewayEvent = { headers, body: Buffer.from(body).toString('base64'), isBase64Encoded: true };
      expect(await verifyWebhook(subscription.secret, gatewayEvent)).toEqual(event);
      await expect(verifyWebhook(subscription.secret, { headers, body: body.replace('Hook', 'Hack') })).rejects.toThrow(
        'no signature matches',
      );
      const otherSecret = `whsec_${createHash('sha256').update('x').digest('base64')}`;
      await expect(verifyWebhook(otherSecret, { headers, body })).rejects.toThrow('no signature matches');
      const late = new Date(Number(headers['webhook-timestamp']) * 1000 + 6 * 60_000);
      await expect(verifyWebhook(subscription.secret, { headers, body }, { now: late })).rejects.toThrow('5 minutes');
      await client.deleteWebhookSubscription({ id: subscription.id });
    } finally {
      await receiver.close();
    }
  });
});

// Last: the tests above, through one client or another, sent every operation of the document at least once.
describe('field grants (contract §25)', () => {
  it('lastRestrictedFields names what the last answer withheld; null for a token without a grant', async () => {
    const employee = await client.createEmployee({ body: { first_name: 'Gra', last_name: 'Nted', city: 'Bozen' } });
    expect(client.lastRestrictedFields).toBeNull();
    const { token: narrow } = await createToken(BUSINESS, {
      scopes: ['employees:read'],
      fields: { employees: ['first_name', 'last_name'] },
    });
    const granted = newClient({ token: narrow });
    const seen = await granted.getEmployee({ id: employee.id });
    expect(Object.keys(seen).sort()).toEqual(['created_at', 'first_name', 'id', 'last_name', 'updated_at']);
    expect(granted.lastRestrictedFields).toEqual(expect.arrayContaining(['city', 'iban']));
    expect(granted.lastRestrictedFields).not.toContain('first_name');
    await client.getEmployee({ id: employee.id });
    expect(client.lastRestrictedFields).toBeNull();
  });
});

describe('coverage', () =>
  it('every operation of the document was sent', () => {
    const used = new Set(sent.map((s) => s.operation));
    expect(Object.keys(OPERATIONS).filter((op) => !used.has(op))).toEqual([]);
    expect(used.size).toBe(Object.keys(OPERATIONS).length + 1); // and uploads to the local S3 server
  }));
