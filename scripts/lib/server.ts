import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { FALLBACK_ROUTE, matchRoute, type RouteDefinition } from '../../src/http/routes';
import type { LambdaHandler } from '../../src/http/handler';
import { errorResponse } from '../../src/http/middleware';
import { languageOf } from '../../src/http/i18n/language';
import { headersTooLarge, internalError, malformedRequest, payloadTooLarge } from '../../src/domain/errors';
import { FUNCTION_SETTINGS } from '../../lib/constructs/function-settings';
import { inProcessLauncher, useExportLauncher } from '../../src/services/exports';
import { useClientPlugin } from '../../src/data/dynamo/client';
import { processTurns } from './process-turns';
import { FloodLanes } from './flood-lanes';

/** API Gateway's own payload cap; the functions enforce the contract's 1 MiB themselves. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

const handlers = new Map<string, LambdaHandler>();

/** The deployed handler of a route, loaded on first use like a cold start. */
function handlerOf(name: string): LambdaHandler {
  let handler = handlers.get(name);
  if (!handler) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    handler = (require(join(__dirname, '..', '..', 'functions', name)) as { handler: LambdaHandler }).handler;
    handlers.set(name, handler);
  }
  return handler;
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > GATEWAY_MAX_BODY ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const headersOf = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(req.headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(',') : value]],
    ),
  );

/** What API Gateway HTTP API (payload v2) hands a function for this request. */
export function toEvent(
  req: IncomingMessage,
  body: Buffer,
  route: RouteDefinition | undefined,
  pathParameters: Record<string, string>,
): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers = headersOf(req);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const method = (req.method ?? 'GET').toUpperCase();
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: route ? `${route.method} ${route.path}` : '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: route ? `${route.method} ${route.path}` : '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: body.length ? body.toString('utf8') : undefined,
    isBase64Encoded: false,
  };
}

/** The deployed functions' timeout: what getRemainingTimeInMillis counts down from. */
export const FUNCTION_TIMEOUT_MS = FUNCTION_SETTINGS.timeoutSeconds * 1000;

const lambdaContext = (name: string, requestId: string, timeoutMs: number): Context => {
  const endsAt = Date.now() + timeoutMs;
  return {
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, endsAt - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  } as Context;
};

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
  res.end(result.body ?? '');
}

/** Tokens being refused are served one request at a time (flood-lanes.ts): what one process needs to keep §18's isolation. */
const floodLanes = new FloodLanes();
/** A refusal keeps its token's lane for its Retry-After and a shortest window more: the burst it then admits runs in it. */
const refusedForMs = (answer: APIGatewayProxyStructuredResultV2): number | undefined =>
  answer.statusCode === 429 ? Number(answer.headers?.['Retry-After'] ?? 1) * 1000 + 10_000 : undefined;

/** Routes a request exactly as the HTTP API does: a matching row's function, else $default. */
export async function dispatch(
  req: IncomingMessage,
  res: ServerResponse,
  timeoutMs = FUNCTION_TIMEOUT_MS,
): Promise<void> {
  const body = await readBody(req);
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (body === 'too-large') {
    // The gateway's own refusal, in the contract's shape like every other answer (X-Request-Id included).
    send(res, errorResponse(payloadTooLarge(GATEWAY_MAX_BODY), randomUUID(), languageOf(headersOf(req))));
    return;
  }
  const { match } = matchRoute(method, url.pathname);
  const name = match?.route.name ?? FALLBACK_ROUTE.name;
  const event = toEvent(req, body, match?.route, match?.pathParameters ?? {});
  // The function's time counts from the request's arrival, as behind API Gateway: a wait in a lane spends it.
  const context = lambdaContext(name, event.requestContext.requestId, timeoutMs);
  send(res, await floodLanes.run(req.headers.authorization, () => handlerOf(name)(event, context), refusedForMs));
}

/** The raw bytes of an answer on a socket the HTTP parser gave up on (its headers were never read: English). */
function rawAnswer(result: APIGatewayProxyStructuredResultV2): string {
  const body = String(result.body ?? '');
  const headers = {
    ...(result.headers as Record<string, string>),
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const status = result.statusCode === 431 ? '431 Request Header Fields Too Large' : '400 Bad Request';
  return `HTTP/1.1 ${status}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n${body}`;
}

/** `timeoutMs` stands in for the deployed function timeout (tests use a short one). */
export function createLocalServer(options: { timeoutMs?: number } = {}): Server {
  // Exports run in this process, outside the request that started them (contract §20; deployed: a queue and a worker).
  useExportLauncher(inProcessLauncher());
  // Many requests share this process: its writers take turns on what they were refused on (process-turns.ts).
  useClientPlugin(processTurns);
  const server = createServer((req, res) => {
    dispatch(req, res, options.timeoutMs).catch((error: unknown) => {
      console.error(error);
      const result = errorResponse(internalError(), randomUUID());
      if (!res.headersSent) res.writeHead(result.statusCode ?? 500, result.headers as Record<string, string>);
      res.end(result.body);
    });
  });
  // What node's HTTP parser refuses (headers over 16 KiB: 431; anything unparsable: 400) never reaches dispatch;
  // it is answered here in the same shape, with its own X-Request-Id, instead of node's bare status line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
    const refusal = error.code === 'HPE_HEADER_OVERFLOW' ? headersTooLarge() : malformedRequest();
    socket.end(rawAnswer(errorResponse(refusal, randomUUID())));
  });
  return server;
}
