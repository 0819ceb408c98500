/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are arbitrary JSON the tests inspect freely */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { request as nodeRequest, type Server } from 'node:http';
import { resetClient, dynamoStats } from '../../src/data/dynamo/client';
import { importBusiness } from '../../src/data/business-store';
import { issueToken } from '../../src/data/token-store';
import { rateCountsSent } from '../../src/data/rate-counts';
import { SYNC_INTERVAL_MS } from '../../src/domain/rate-window';
import { buildBusiness, type Fixture } from '../../src/domain/fixture';
import { parseFixture } from '../../src/schemas/fixture';
import { ensureTable } from '../../scripts/lib/dynamodb-local';
import { ensureBucket } from '../../scripts/lib/s3-local';
import { resetS3Client } from '../../src/data/s3/client';
import { createLocalServer } from '../../scripts/lib/server';
import { checkResponse } from './contract';
import { workerMap } from './worker-cache';
import { withoutRecords } from './demo-setup';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestApi {
  baseUrl: string;
  request<T = any>(
    method: string,
    path: string,
    options?: {
      token?: string | null;
      body?: unknown;
      rawBody?: string | Uint8Array;
      headers?: Record<string, string>;
    },
  ): Promise<ApiResponse<T>>;
  /** Imports a fixture object's business and reference data (not its records) into this file's table; a fresh token. */
  provision(fixture: object): Promise<string>;
  close(): Promise<void>;
}

/**
 * Fixtures parsed by earlier files of this jest worker (test/support/worker-environment.cjs), by their JSON: most
 * files provision the demo business, and a parse compiles its locales' validator (about 0.15 s of CPU) anew in
 * every file's module registry. A copy each time, made in the file's own realm: nothing a file does to it reaches
 * the next.
 */
const parsedFixtures = workerMap<string, Fixture>('fixtures');

function parsedFixture(input: unknown): Fixture {
  const key = JSON.stringify(input);
  let fixture = parsedFixtures.get(key);
  if (!fixture) {
    const result = parseFixture(input);
    if (!result.ok) throw new Error(`bad test fixture: ${result.problems.join('; ')}`);
    parsedFixtures.set(key, (fixture = result.fixture));
  }
  return JSON.parse(JSON.stringify(fixture)) as Fixture;
}

/**
 * Per test file: its own table in its worker's DynamoDB Local, its own bucket
 * in the shared local S3 server, and the local server (the deployed handlers behind the route table) on a random port.
 */
export async function startApi(options: { timeoutMs?: number } = {}): Promise<TestApi> {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT not set (jest globalSetup starts DynamoDB Local)');
  process.env.NODE_ENV = 'test';
  process.env.TABLE_NAME = `test-${randomBytes(6).toString('hex')}`;
  // Like `npm start` (scripts/local-server.ts): loopback webhook targets allowed, a key that seals their secrets.
  process.env.WEBHOOKS_ALLOW_LOOPBACK ??= '1';
  process.env.WEBHOOK_SECRET_KEY ??= randomBytes(32).toString('base64');
  process.env.ATTACHMENTS_BUCKET = `test-${randomBytes(6).toString('hex')}`;
  resetClient();
  resetS3Client();
  await ensureTable(endpoint, process.env.TABLE_NAME);
  if (process.env.S3_ENDPOINT) await ensureBucket(process.env.S3_ENDPOINT, process.env.ATTACHMENTS_BUCKET);
  const server: Server = createLocalServer(options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | Uint8Array | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await httpRequest(`${baseUrl}${path}`, method, headers, body);
      const text = res.text;
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: keep text */
      }
      checkResponse(method, path, res.status, parsed, res.headers);
      return { status: res.status, headers: res.headers, body: parsed as any, text };
    },
    async provision(fixture) {
      const { config, records } = buildBusiness(parsedFixture(withTestRateLimits(withoutRecords(fixture))));
      await importBusiness(config, records);
      return issueToken(config.id, 'test');
    },
    // As a stopping local server does: the rate counts it admitted are sent first. Left unsent, they would be
    // retried every second against a DynamoDB Local the run has stopped, and a file run alone would never exit.
    async close() {
      await rateCountsSent(3 * SYNC_INTERVAL_MS);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The limits test fixtures run with unless they set their own (contract §18: the demo fixture keeps the
 * defaults, the tests set what they need): far above what any test sends, so only the rate limit tests see a 429.
 */
export const TEST_RATE_LIMIT = { requests: 100_000, window_seconds: 10 };
export function withTestRateLimits(fixture: object): object {
  const business = (fixture as { business?: Record<string, unknown> }).business;
  if (!business || typeof business !== 'object') return fixture;
  return {
    ...fixture,
    business: { token_rate_limit: TEST_RATE_LIMIT, rate_limit: TEST_RATE_LIMIT, ...business },
  };
}

/** DynamoDB calls made while `fn` runs (the server runs in this process). */
export async function countCalls<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; calls: number; roundTrips: number; items: number; units: number }> {
  dynamoStats.reset();
  const result = await fn();
  const { calls, roundTrips, itemsRead: items, capacityUnits: units } = dynamoStats;
  return { result, calls, roundTrips, items, units };
}

export const API = '/services/api/v1';

/**
 * One request over node:http: the tests send thousands, and fetch's web streams cost more CPU per request than the
 * handler under test does little of (i18n.test.ts: about 6 % of the file's CPU). It sends only the headers given
 * (fetch adds `accept: *\/*` and `accept-language: *`, which the API reads as their absence anyway).
 */
function httpRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    // Like fetch, a body always says its length: node:http sends a DELETE's body without Content-Length or chunking.
    const sent = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = nodeRequest(url, { method, headers: sent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) for (const x of Array.isArray(v) ? v : [v]) h.append(k, x);
        resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
