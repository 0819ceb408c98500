/**
 * `npm start` (contract §10): DynamoDB Local (embedded, file-backed in .dynamodb/,
 * unless DYNAMODB_ENDPOINT is set), the table, the local S3 server for
 * attachments (in .dynamodb/s3/, unless S3_ENDPOINT is set), the demo business on first run,
 * and every route of src/http/routes.ts served through the deployed handlers.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configOf } from '../src/data/business-store';
import { business } from '../src/data/entities/business';
import { rateCountsSent } from '../src/data/rate-counts';
import { getItem } from '../src/data/dynamo/table-io';
import { issueToken, lookupToken } from '../src/data/token-store';
import { SCOPES } from '../src/domain/scopes';
import {
  announceEndpoint,
  announceS3Endpoint,
  connect,
  connectS3,
  DATA_DIR,
  describeFailure,
  LOCAL_IMPORT_RUN_SHARE,
  OperatorError,
  writeLocalFile,
} from './lib/environment';
import { describePeople, provisionFromFile, loadFixture } from './lib/provision';
import { createLocalServer } from './lib/server';
import { instanceCount, isInstance, serveInstance, startInstances } from './lib/instances';
import { startLocalDispatcher } from '../src/services/webhook-dispatcher';
import { startLocalEffectiveDates } from '../src/services/effective-dates';
import '../src/services/feed-wiring';
import { handler as checkAttachment } from '../functions/check-attachment';
import { handler as runImport } from '../functions/run-import';

/** What the first run imports (DEMO_FIXTURE: another fixture file, e.g. one without records for a quick start). */
const DEMO_FIXTURE = process.env.DEMO_FIXTURE || join(__dirname, '..', 'fixtures', 'demo.json');
const TOKEN_FILE = join(DATA_DIR, 'demo-token');
const WEBHOOK_KEY_FILE = join(DATA_DIR, 'webhook-key');
const saveToken = (token: string): void => writeLocalFile('demo-token', token);

/** The AES key that seals webhook secrets locally (src/data/secret-box.ts): made once, owner-only. */
function webhookSecretKey(): string {
  if (!existsSync(WEBHOOK_KEY_FILE)) writeLocalFile('webhook-key', randomBytes(32).toString('base64'));
  return readFileSync(WEBHOOK_KEY_FILE, 'utf8').trim();
}

async function demoToken(): Promise<{ businessId: string; token: string }> {
  const fixture = loadFixture(DEMO_FIXTURE);
  const businessId = fixture.business.id;
  if (!configOf(await getItem(business.configKey(businessId)))) {
    const records = fixture.employees.length + fixture.employee_jobs.length + fixture.applications.length;
    if (records > 0) console.log(`Importing the demo business "${businessId}": ${records} records, about a minute…`);
    const { token, people } = await provisionFromFile(DEMO_FIXTURE);
    saveToken(token);
    console.log(
      `Imported the demo business "${businessId}" from ${DEMO_FIXTURE} (${describePeople(people) || 'no records'})`,
    );
    return { businessId, token };
  }
  const saved = existsSync(TOKEN_FILE) ? readFileSync(TOKEN_FILE, 'utf8').trim() : '';
  // The demo token keeps full access: a saved one that lost a scope or expires is replaced.
  const grant = saved ? await lookupToken(saved) : undefined;
  if (grant?.businessId === businessId && grant.scopes.length === SCOPES.length && grant.expiresAt === undefined)
    return { businessId, token: saved };
  const token = await issueToken(businessId, 'npm start');
  saveToken(token);
  return { businessId, token };
}

/** How often the local server's import watchdog looks for imports without progress (deployed: the schedule). */
const IMPORT_WATCH_MS = 60_000;

async function main(): Promise<void> {
  // Everything `npm start` writes (the data folder, DynamoDB Local's database, the S3 server's buckets and the CVs
  // in them, written for as long as it runs) is readable by its user only: folders 0700, files 0600.
  process.umask(0o077);
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const instances = instanceCount();
  if (typeof instances === 'string') throw new OperatorError(instances);
  const { endpoint, embedded } = await connect({ allowAws: false });
  if (embedded && endpoint) announceEndpoint(endpoint);
  const s3 = await connectS3({ allowAws: false });
  process.env.IMPORT_RUN_SHARE ??= LOCAL_IMPORT_RUN_SHARE;
  if (s3.embedded && s3.endpoint) announceS3Endpoint(s3.endpoint);
  // Contract §19: the deployed check function, run on the local S3 server's object-created events.
  s3.embedded?.onEvent((event) => {
    checkAttachment(event).catch((error: unknown) =>
      console.error(`attachment check failed: ${describeFailure(error)}`),
    );
    // Contract §22: an import's upload starts its run, here to its end in this process (failed runs tried again).
    runImport(event).catch((error: unknown) => console.error(`import run failed: ${describeFailure(error)}`));
  });
  // The import watchdog, as the deployed schedule runs it: no import stays running without progress.
  const watchdog = setInterval(() => {
    runImport({ watch: true }).catch((error: unknown) =>
      console.error(`import watchdog failed: ${describeFailure(error)}`),
    );
  }, IMPORT_WATCH_MS);
  watchdog.unref();
  const { businessId, token } = await demoToken();
  // Contract §14: the local server also delivers to loopback http receivers.
  process.env.WEBHOOKS_ALLOW_LOOPBACK = '1';
  process.env.WEBHOOK_SECRET_KEY ??= webhookSecretKey();
  const stopDispatcher = startLocalDispatcher();
  // Contract §26: a day's effective-date changes within a minute of its midnight, and missed days at start.
  const stopEffectiveDates = startLocalEffectiveDates();
  const port = Number(process.env.PORT ?? 3000);
  // Loopback unless HOST says otherwise (contract §10): the local stack is not for the network.
  const host = process.env.HOST || '127.0.0.1';
  // One process serves (its state is one instance's), or INSTANCES processes share the port (scripts/lib/instances.ts).
  const server = instances === 1 ? createLocalServer() : undefined;
  const forked = instances === 1 ? undefined : await startInstances(instances);
  if (server)
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
  const shownHost = host === '127.0.0.1' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const base = `http://${shownHost}:${port}/services/api/v1`;
  console.log(`DynamoDB: ${endpoint} (table ${process.env.TABLE_NAME})${embedded ? ', embedded DynamoDB Local' : ''}`);
  console.log(
    `S3:       ${s3.endpoint} (bucket ${process.env.ATTACHMENTS_BUCKET})${s3.embedded ? ', embedded s3rver' : ''}`,
  );
  if (forked)
    console.log(`Serving:  ${instances} instances (INSTANCES), each with its own state like a Lambda instance`);
  console.log(`Business: ${businessId}`);
  console.log(`Base URL: ${base}`);
  console.log(`Docs:     http://${shownHost}:${port}/docs`);
  console.log(`Token:    ${token}`);
  console.log(`Try:      curl -H "Authorization: Bearer ${token}" ${base}/locations`);

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    server?.close();
    clearInterval(watchdog);
    // What this process admitted is stored before DynamoDB stops (a sync a second at most).
    await rateCountsSent(3000);
    await forked?.stop();
    await stopDispatcher();
    await stopEffectiveDates();
    await embedded?.stop();
    await s3.embedded?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

if (isInstance())
  serveInstance(createLocalServer()).catch((error: unknown) => {
    console.error(`npm start instance failed: ${describeFailure(error)}`);
    process.exit(1);
  });
else
  main().catch((error: unknown) => {
    console.error(`npm start failed: ${describeFailure(error)}`);
    process.exit(1);
  });
