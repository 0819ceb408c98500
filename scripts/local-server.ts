/**
 * `npm start` (contract §10): DynamoDB Local (embedded, file-backed in .dynamodb/,
 * unless DYNAMODB_ENDPOINT is set), the table, the demo business on first run,
 * and every route of src/http/routes.ts served through the deployed handlers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configOf } from '../src/data/business-store';
import { keys } from '../src/data/keys';
import { getItem } from '../src/data/table-io';
import { issueToken, lookupToken } from '../src/data/token-store';
import { SCOPES } from '../src/domain/scopes';
import { announceEndpoint, connect, DATA_DIR, describeFailure, writeLocalFile } from './lib/environment';
import { provisionFromFile, loadFixture } from './lib/provision';
import { createLocalServer } from './lib/server';

const DEMO_FIXTURE = join(__dirname, '..', 'fixtures', 'demo.json');
const TOKEN_FILE = join(DATA_DIR, 'demo-token');
const saveToken = (token: string): void => writeLocalFile('demo-token', token);

async function demoToken(): Promise<{ businessId: string; token: string }> {
  const businessId = loadFixture(DEMO_FIXTURE).business.id;
  if (!configOf(await getItem(keys.business(businessId)))) {
    const { token } = await provisionFromFile(DEMO_FIXTURE);
    saveToken(token);
    console.log(`Imported the demo business "${businessId}" from fixtures/demo.json`);
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

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const { endpoint, embedded } = await connect({ allowAws: false });
  if (embedded && endpoint) announceEndpoint(endpoint);
  const { businessId, token } = await demoToken();
  const port = Number(process.env.PORT ?? 3000);
  // Loopback unless HOST says otherwise (contract §10): the local stack is not for the network.
  const host = process.env.HOST || '127.0.0.1';
  const server = createLocalServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const shownHost = host === '127.0.0.1' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const base = `http://${shownHost}:${port}/services/api/v1`;
  console.log(`DynamoDB: ${endpoint} (table ${process.env.TABLE_NAME})${embedded ? ', embedded DynamoDB Local' : ''}`);
  console.log(`Business: ${businessId}`);
  console.log(`Base URL: ${base}`);
  console.log(`Docs:     http://${shownHost}:${port}/docs`);
  console.log(`Token:    ${token}`);
  console.log(`Try:      curl -H "Authorization: Bearer ${token}" ${base}/locations`);

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    server.close();
    await embedded?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(`npm start failed: ${describeFailure(error)}`);
  process.exit(1);
});
