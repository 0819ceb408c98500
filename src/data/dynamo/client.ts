import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inCallScope, RATE_COUNTS_SCOPE, recordCall } from './call-scope';
import { capacityDetail, dynamodbEndpoint } from '../config';
import { serviceUnavailable } from '../../domain/errors';
import { remainingMs } from '../deadline';
import { currentScope, withinScope } from '../request-scope';

/**
 * Work a local process runs beside its requests (an export's worker run, which
 * deployed is a function of its own): its calls are left out of dynamoStats,
 * which measure what requests cost.
 */
export const runInBackground = <T>(fn: () => T): T => withinScope({ background: true }, fn);

/**
 * Per-process DynamoDB statistics. Tests assert round trips per request with
 * them and the benchmark prints items read and capacity; they cost a few
 * additions per call in production.
 */
export const dynamoStats = {
  calls: 0,
  /**
   * Round trips: the longest chain of calls each started after the one before
   * it had answered. Calls sent together (Promise.all) are one round trip:
   * what a request waits for is the chain, not the number of calls.
   */
  roundTrips: 0,
  /** Longest chain among the calls that have answered (the next call extends it). */
  answeredChain: 0,
  itemsRead: 0,
  /** Of itemsRead, the entries read by Queries of an index (list pages: the key-only entries, before their records). */
  indexItemsRead: 0,
  capacityUnits: 0,
  /** Split of the units by table and indexes, reads and writes; filled when capacityDetail() asks DynamoDB for it. */
  units: { read: 0, write: 0, indexRead: 0, indexWrite: 0 },
  byCommand: {} as Record<string, number>,
  /** Calls sent beside the requests' own (rate count syncs, src/data/rate-counts.ts): in none of the figures above. */
  besideCalls: 0,
  /**
   * Every call in order with its units, kept only while `keepLog` is set (`npm run bench:cost` tells a page's
   * records read from its Query): a process that serves for hours would otherwise keep an entry per call.
   */
  keepLog: false,
  log: [] as { command: string; read: number; write: number; indexRead: number; indexWrite: number }[],
  reset(): void {
    this.besideCalls = 0;
    this.calls = 0;
    this.roundTrips = 0;
    this.answeredChain = 0;
    this.itemsRead = 0;
    this.indexItemsRead = 0;
    this.capacityUnits = 0;
    this.units = { read: 0, write: 0, indexRead: 0, indexWrite: 0 };
    this.byCommand = {};
    this.log = [];
  },
};

interface Units {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

interface ConsumedCapacityShape extends Units {
  Table?: Units;
  GlobalSecondaryIndexes?: Record<string, Units>;
  LocalSecondaryIndexes?: Record<string, Units>;
}

/** Reads and writes of one ConsumedCapacity entry (INDEXES detail): a part without the split counts as the command's kind. */
function addUnits(c: ConsumedCapacityShape, writes: boolean): void {
  const split = (u: Units | undefined): { read: number; write: number } => {
    if (!u) return { read: 0, write: 0 };
    if (u.ReadCapacityUnits !== undefined || u.WriteCapacityUnits !== undefined)
      return { read: u.ReadCapacityUnits ?? 0, write: u.WriteCapacityUnits ?? 0 };
    return writes ? { read: 0, write: u.CapacityUnits ?? 0 } : { read: u.CapacityUnits ?? 0, write: 0 };
  };
  const table = split(c.Table);
  dynamoStats.units.read += table.read;
  dynamoStats.units.write += table.write;
  for (const index of [
    ...Object.values(c.GlobalSecondaryIndexes ?? {}),
    ...Object.values(c.LocalSecondaryIndexes ?? {}),
  ]) {
    const u = split(index);
    dynamoStats.units.indexRead += u.read;
    dynamoStats.units.indexWrite += u.write;
  }
}

/**
 * Runs `fn`, whose DynamoDB calls go out beside the request's own (a rate
 * count sync, made for a verified token): they are counted in
 * dynamoStats.besideCalls, not in the request's calls and round trips, which
 * they never lengthen.
 */
export const besideRequest = <T>(fn: () => Promise<T>): Promise<T> =>
  withinScope({ beside: true }, () => inCallScope(RATE_COUNTS_SCOPE, fn));

/**
 * Starts `fn` beside the request, in the request's own call scope (its grants),
 * and never waits for it: upkeep a committed write hands on (the fold of a
 * list's summary, src/data/lists/counter.ts) that no answer depends on. Its
 * failure is its own; a Lambda frozen after answering may finish it in a later
 * invocation or never, which such upkeep must allow.
 */
export function startBesideRequest(fn: () => Promise<unknown>): void {
  withinScope({ beside: true }, fn).catch(() => undefined);
}

/** Whether the current call goes out beside the request's own (besideRequest): benchmarks count them apart. */
export const isBesideRequest = (): boolean => currentScope().beside === true;

const WRITE_COMMANDS = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);
const DATA_COMMANDS = new Set([
  ...WRITE_COMMANDS,
  'GetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'TransactGetItemsCommand',
]);

interface OutputShape {
  Item?: unknown;
  Items?: unknown[];
  Count?: number;
  ScannedCount?: number;
  Responses?: Record<string, unknown[]> | unknown[];
  ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
}

function itemsIn(output: OutputShape): number {
  if (typeof output.ScannedCount === 'number') return output.ScannedCount;
  if (output.Item) return 1;
  if (output.Responses && !Array.isArray(output.Responses))
    return Object.values(output.Responses).reduce((n, list) => n + list.length, 0);
  return 0;
}

/**
 * How every client of a local endpoint (DYNAMODB_ENDPOINT) connects: the data
 * client here and the table setup in scripts/. DynamoDB Local started without
 * -sharedDb keeps one database per access key and region, so all of them use
 * the same fixed pair, whatever AWS_REGION or AWS credentials say.
 */
export const localEndpointConfig = (endpoint: string): DynamoDBClientConfig => ({
  endpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

function createClient(): DynamoDBDocumentClient {
  const endpoint = dynamodbEndpoint();
  const base = new DynamoDBClient({
    ...(endpoint ? localEndpointConfig(endpoint) : {}),
    // Fail fast into a 503 instead of hanging until the Lambda timeout: 3 attempts, short timeouts
    // (without throwOnRequestTimeout the SDK only logs a warning and keeps waiting), all within
    // the request's deadline (see `send` below).
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1000, requestTimeout: 2000, throwOnRequestTimeout: true },
  });
  // The SDK's logger middleware filters every input and output for its logger before the logger decides
  // not to log (its no-op default included): a walk of each response, a list page's records and the large
  // employee items too. Nothing logs through it here; errors reach the handler and its logger.
  base.middlewareStack.remove('loggerMiddleware');
  // No attempt (first or retry) starts once the request's deadline has passed.
  base.middlewareStack.add(
    (next) => async (args) => {
      if (remainingMs() <= 0) throw serviceUnavailable();
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'requestDeadline' },
  );
  base.middlewareStack.add(
    (next, context) => async (args) => {
      // Before sending: a call that fails still needed its permission.
      recordCall(context.commandName ?? 'unknown', args.input);
      if (currentScope().beside) {
        dynamoStats.besideCalls += 1;
        return next(args);
      }
      const detail = capacityDetail();
      if (detail && DATA_COMMANDS.has(context.commandName ?? ''))
        (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = detail;
      if (currentScope().background) return next(args);
      const chain = dynamoStats.answeredChain + 1;
      dynamoStats.roundTrips = Math.max(dynamoStats.roundTrips, chain);
      const result = await next(args);
      dynamoStats.answeredChain = Math.max(dynamoStats.answeredChain, chain);
      const output = result.output as OutputShape;
      dynamoStats.calls += 1;
      dynamoStats.itemsRead += itemsIn(output);
      const name = context.commandName ?? 'unknown';
      if ((args.input as { IndexName?: string }).IndexName) dynamoStats.indexItemsRead += itemsIn(output);
      dynamoStats.byCommand[name] = (dynamoStats.byCommand[name] ?? 0) + 1;
      const capacity = output.ConsumedCapacity;
      const before = { ...dynamoStats.units };
      for (const c of Array.isArray(capacity) ? capacity : capacity ? [capacity] : []) {
        dynamoStats.capacityUnits += c.CapacityUnits ?? 0;
        addUnits(c as ConsumedCapacityShape, WRITE_COMMANDS.has(name));
      }
      const after = dynamoStats.units;
      if (dynamoStats.keepLog)
        dynamoStats.log.push({
          command: name,
          read: after.read - before.read,
          write: after.write - before.write,
          indexRead: after.indexRead - before.indexRead,
          indexWrite: after.indexWrite - before.indexWrite,
        });
      return result;
    },
    { step: 'initialize', name: 'roundTripStats' },
  );
  for (const plugin of plugins) base.middlewareStack.use(plugin);
  const doc = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  // Every call of a request is aborted at its deadline, the attempt in flight included.
  const send = doc.send.bind(doc) as (command: unknown, options?: object) => Promise<unknown>;
  (doc as { send: typeof send }).send = (command, options) => {
    const left = remainingMs();
    if (left === Infinity) return send(command, options);
    if (left <= 0) return Promise.reject(serviceUnavailable());
    // AbortSignal.timeout takes whole milliseconds only (a reserve of a third of the time left is fractional).
    return send(command, { abortSignal: AbortSignal.timeout(Math.max(1, Math.floor(left))), ...options });
  };
  return doc;
}

let client: DynamoDBDocumentClient | undefined;

export type ClientPlugin = Parameters<DynamoDBClient['middlewareStack']['use']>[0];
const plugins = new Set<ClientPlugin>();

/**
 * Adds `plugin` (middleware, in the form the SDK's `middlewareStack.use` takes) to this process's DynamoDB
 * client, and to every client it creates after resetClient: what one kind of process adds to all its calls
 * (the local server, scripts/lib/server.ts). A plugin added again changes nothing.
 */
export function useClientPlugin(plugin: ClientPlugin): void {
  if (plugins.has(plugin)) return;
  plugins.add(plugin);
  client?.middlewareStack.use(plugin);
}

/** One client per process, created on first use so import stays cheap. */
export const db = (): DynamoDBDocumentClient => (client ??= createClient());

/** For tests that change DYNAMODB_ENDPOINT between suites. */
export const resetClient = (): void => {
  client?.destroy();
  client = undefined;
};
