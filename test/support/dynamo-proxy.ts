import { createServer, request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { resetClient } from '../../src/data/dynamo/client';

/**
 * A fault-injecting HTTP proxy in front of DynamoDB Local, for tests.
 *
 * DynamoDB Local never fails ambiguously, never throttles and its indexes never
 * lag; real DynamoDB does all three. The proxy speaks the JSON 1.0 wire
 * protocol (the operation is named by the X-Amz-Target header) and, per mode,
 * answers as DynamoDB would when things go wrong.
 */

export const WRITE_OPERATIONS: ReadonlySet<string> = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'TransactWriteItems',
  'BatchWriteItem',
]);

export interface FaultModes {
  /** Probability that a write is forwarded (so it is applied) and then answered 500 InternalServerError. */
  applyThenFail?: number;
  /** Probability that a request is answered 400 with `throttleError` without being forwarded. */
  throttle?: number;
  throttleError?: 'ThrottlingException' | 'ProvisionedThroughputExceededException';
  /** Probability that the connection is destroyed before the request is forwarded (nothing applied). */
  dropBeforeForward?: number;
  /** Probability that the request is forwarded (a write is applied) and the connection destroyed instead of answering. */
  dropAfterForward?: number;
  /** Probability that the request is forwarded and the answer never comes (the client times out). */
  hangAfterForward?: number;
  /**
   * Requests are forwarded at once (a write is applied) and answered only after this many ms: an answer that
   * comes after the client gave up on it.
   */
  delayAnswerMs?: number;
  /**
   * Requests are forwarded only after this many ms (a write is applied late, even after the client
   * gave up on its answer: DynamoDB finishes what it received).
   */
  delayBeforeForwardMs?: number;
  /** Every TransactWriteItems is cancelled with TransactionConflict (not forwarded). */
  transactionConflict?: boolean;
  /**
   * Items written through the proxy within the last N ms are left out of
   * Query/Scan answers on an index (IndexName): real GSIs are eventually consistent.
   */
  indexLagMs?: number;
  /** Faults (not index lag) apply only to these operations; all when absent. */
  operations?: readonly string[];
}

/**
 * The faults the ambiguous-write tests run under: 30 % of writes applied then answered 500, throttles, and
 * connections reset before and after forwarding.
 */
export const AMBIGUOUS_FAULTS = {
  applyThenFail: 0.3,
  throttle: 0.05,
  dropBeforeForward: 0.03,
  dropAfterForward: 0.03,
} as const satisfies FaultModes;

export interface ProxyStats {
  /** Requests received per operation (including those answered with a fault). */
  requests: Record<string, number>;
  /** Faults injected per kind. */
  faults: Record<string, number>;
  /** Items in forwarded read answers (Count/ScannedCount, Item, Responses) as the client received them. */
  itemsRead: number;
  /** Items hidden from index reads by `indexLagMs`. */
  itemsHidden: number;
}

export interface DynamoProxy {
  readonly endpoint: string;
  readonly stats: ProxyStats;
  /** Replaces the fault modes (an empty object turns every fault off). */
  setModes(modes: FaultModes): void;
  resetStats(): void;
  close(): Promise<void>;
}

/** Small deterministic PRNG (mulberry32) so a seeded run injects the same faults on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = Record<string, unknown>;
type AttributeMap = Record<string, Record<string, unknown>>;

const ERROR_PREFIX = 'com.amazonaws.dynamodb.v20120810#';
const JSON_TYPE = 'application/x-amz-json-1.0';

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function parse(body: Buffer): Json {
  try {
    const value: unknown = JSON.parse(body.toString('utf8') || '{}');
    return value && typeof value === 'object' ? (value as Json) : {};
  } catch {
    return {};
  }
}

function answer(res: ServerResponse, status: number, body: Json): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(text),
    'x-amzn-RequestId': `proxy-${Math.random().toString(36).slice(2)}`,
  });
  res.end(text);
}

const awsError = (type: string, message: string, extra: Json = {}): Json => ({
  __type: `${ERROR_PREFIX}${type}`,
  message,
  ...extra,
});

const keyId = (table: string, item: AttributeMap | undefined): string | undefined => {
  const pk = item?.PK?.S;
  const sk = item?.SK?.S;
  return typeof pk === 'string' && typeof sk === 'string' ? `${table}\u0000${pk}\u0000${sk}` : undefined;
};

/** Table keys (PK/SK) a write request touches. */
export function writtenKeys(operation: string, request: Json): string[] {
  const keys: (string | undefined)[] = [];
  const table = String(request.TableName ?? '');
  switch (operation) {
    case 'PutItem':
      keys.push(keyId(table, request.Item as AttributeMap));
      break;
    case 'UpdateItem':
    case 'DeleteItem':
      keys.push(keyId(table, request.Key as AttributeMap));
      break;
    case 'TransactWriteItems':
      for (const entry of (request.TransactItems as Json[] | undefined) ?? []) {
        const put = entry.Put as Json | undefined;
        const other = (entry.Update ?? entry.Delete) as Json | undefined;
        if (put) keys.push(keyId(String(put.TableName), put.Item as AttributeMap));
        if (other) keys.push(keyId(String(other.TableName), other.Key as AttributeMap));
      }
      break;
    case 'BatchWriteItem':
      for (const [name, list] of Object.entries((request.RequestItems as Record<string, Json[]>) ?? {})) {
        for (const entry of list) {
          const put = entry.PutRequest as Json | undefined;
          const del = entry.DeleteRequest as Json | undefined;
          keys.push(keyId(name, (put?.Item ?? del?.Key) as AttributeMap));
        }
      }
      break;
  }
  return keys.filter((k): k is string => k !== undefined);
}

function itemsInAnswer(body: Json): number {
  if (typeof body.ScannedCount === 'number') return body.ScannedCount;
  if (typeof body.Count === 'number') return body.Count;
  if (body.Item) return 1;
  const responses = body.Responses;
  if (responses && typeof responses === 'object' && !Array.isArray(responses))
    return Object.values(responses as Record<string, unknown[]>).reduce((n, list) => n + list.length, 0);
  return 0;
}

/**
 * Starts the proxy on 127.0.0.1 (random port) in front of `target`
 * (a DynamoDB Local endpoint). `random` decides each probabilistic fault;
 * pass `seededRandom(n)` for reproducible runs.
 */
export async function startDynamoProxy(
  target: string,
  initial: FaultModes = {},
  random: () => number = Math.random,
): Promise<DynamoProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let modes: FaultModes = { ...initial };
  const lastWritten = new Map<string, number>();
  const stats: ProxyStats = { requests: {}, faults: {}, itemsRead: 0, itemsHidden: 0 };
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();

  const roll = (p: number | undefined): boolean => p !== undefined && p > 0 && random() < p;
  const fault = (kind: string): void => {
    stats.faults[kind] = (stats.faults[kind] ?? 0) + 1;
  };

  function forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Json; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host };
      const out = httpRequest(
        {
          protocol: upstream.protocol,
          hostname: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers,
          agent,
        },
        (res) => {
          readAll(res).then(
            (b) => resolve({ status: res.statusCode ?? 500, headers: res.headers as Json, body: b }),
            reject,
          );
        },
      );
      out.on('error', reject);
      out.end(body);
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.includes('.') ? target.slice(target.indexOf('.') + 1) : target || 'unknown';
    stats.requests[operation] = (stats.requests[operation] ?? 0) + 1;
    const request = parse(body);
    const isWrite = WRITE_OPERATIONS.has(operation);
    const faultable = !modes.operations || modes.operations.includes(operation);

    if (faultable && roll(modes.dropBeforeForward)) {
      fault('dropBeforeForward');
      req.socket.destroy();
      return;
    }
    if (faultable && roll(modes.throttle)) {
      fault('throttle');
      const type = modes.throttleError ?? 'ThrottlingException';
      answer(res, 400, awsError(type, 'Rate of requests exceeds the allowed throughput.'));
      return;
    }
    if (faultable && operation === 'TransactWriteItems' && modes.transactionConflict) {
      fault('transactionConflict');
      const count = ((request.TransactItems as unknown[] | undefined) ?? []).length || 1;
      const reasons = Array.from({ length: count }, (_, i) =>
        i === 0 ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' },
      );
      answer(
        res,
        400,
        awsError(
          'TransactionCanceledException',
          `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
          { CancellationReasons: reasons },
        ),
      );
      return;
    }

    if (faultable && modes.delayBeforeForwardMs) {
      fault('delayBeforeForward');
      await new Promise((resolve) => setTimeout(resolve, modes.delayBeforeForwardMs));
    }
    const up = await forward(req, body);
    if (isWrite && up.status === 200) {
      const now = Date.now();
      for (const key of writtenKeys(operation, request)) lastWritten.set(key, now);
    }

    if (faultable && isWrite && roll(modes.applyThenFail)) {
      fault('applyThenFail');
      answer(res, 500, awsError('InternalServerError', 'Internal server error'));
      return;
    }
    if (faultable && roll(modes.dropAfterForward)) {
      fault('dropAfterForward');
      req.socket.destroy();
      return;
    }
    if (faultable && roll(modes.hangAfterForward)) {
      fault('hangAfterForward');
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }

    if (faultable && modes.delayAnswerMs) {
      fault('delayAnswer');
      await new Promise((resolve) => setTimeout(resolve, modes.delayAnswerMs));
    }

    let payload = up.body;
    if (up.status === 200) {
      const parsed = parse(up.body);
      let changed = false;
      const lag = modes.indexLagMs ?? 0;
      if (lag > 0 && (operation === 'Query' || operation === 'Scan') && request.IndexName && parsed.Items) {
        const table = String(request.TableName ?? '');
        const cutoff = Date.now() - lag;
        const items = parsed.Items as AttributeMap[];
        const kept = items.filter((item) => {
          const id = keyId(table, item);
          const at = id === undefined ? undefined : lastWritten.get(id);
          return at === undefined || at <= cutoff;
        });
        const hidden = items.length - kept.length;
        if (hidden > 0) {
          stats.itemsHidden += hidden;
          parsed.Items = kept;
          if (typeof parsed.Count === 'number') parsed.Count -= hidden;
          if (typeof parsed.ScannedCount === 'number') parsed.ScannedCount -= hidden;
          changed = true;
        }
      }
      stats.itemsRead += itemsInAnswer(parsed);
      if (changed) payload = Buffer.from(JSON.stringify(parsed));
    }
    const headers: Record<string, unknown> = { ...up.headers, 'content-length': payload.length };
    // The checksum covers the original body; a rewritten one must not carry it.
    if (payload !== up.body) delete headers['x-amz-crc32'];
    delete headers['transfer-encoding'];
    res.writeHead(up.status, headers as Record<string, string>);
    res.end(payload);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) answer(res, 500, awsError('InternalServerError', 'proxy failure'));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    stats,
    setModes(next) {
      modes = { ...next };
    },
    resetStats() {
      stats.requests = {};
      stats.faults = {};
      stats.itemsRead = 0;
      stats.itemsHidden = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        for (const socket of sockets) socket.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Points this process's data client (the API under test runs in the jest
 * process) at `endpoint`; returns a function that points it back.
 */
export function pointApiAt(endpoint: string): () => void {
  const previous = process.env.DYNAMODB_ENDPOINT;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  resetClient();
  return () => {
    if (previous === undefined) delete process.env.DYNAMODB_ENDPOINT;
    else process.env.DYNAMODB_ENDPOINT = previous;
    resetClient();
  };
}

/** A proxy in front of this run's DynamoDB Local with the API pointed at it; `close` restores both. */
export async function proxyTheApi(
  modes: FaultModes = {},
  random?: () => number,
): Promise<DynamoProxy & { restore(): Promise<void> }> {
  const target = process.env.DYNAMODB_ENDPOINT;
  if (!target) throw new Error('DYNAMODB_ENDPOINT not set (jest globalSetup starts DynamoDB Local)');
  const proxy = await startDynamoProxy(target, modes, random);
  const unpoint = pointApiAt(proxy.endpoint);
  return {
    ...proxy,
    stats: proxy.stats,
    async restore() {
      unpoint();
      await proxy.close();
    },
  };
}
