import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import demo from '../../fixtures/demo.json';
import { handler } from '../../functions/get-employee';
import { logger } from '../../src/http/logger';
import { API, startApi, type TestApi } from '../support/harness';

let api: TestApi;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: 'logged' } });
});
afterAll(() => api.close());

const event = (requestId: string, authorization: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: `GET ${API}/employees/{id}`,
    rawPath: `${API}/employees/nobody`,
    rawQueryString: '',
    headers: { authorization },
    pathParameters: { id: 'nobody' },
    requestContext: { requestId, http: { method: 'GET', path: `${API}/employees/nobody` } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

const context = (awsRequestId: string): Context =>
  ({ awsRequestId, functionName: 'get-employee', getRemainingTimeInMillis: () => 10_000 }) as unknown as Context;

/** The JSON log lines the Powertools logger writes while `fn` runs. */
async function logsOf(fn: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  logger.setLogLevel('DEBUG');
  try {
    await fn();
  } finally {
    logger.setLogLevel('SILENT');
    write.mockRestore();
  }
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

describe('logs of one warm container', () => {
  it('carry only the keys of their own request: no business, route or request id of the one before', async () => {
    const lines = await logsOf(async () => {
      expect((await handler(event('req-1', `Bearer ${token}`), context('aws-1'))).statusCode).toBe(404);
      expect((await handler(event('req-2', 'Bearer hr_unknown'), context('aws-2'))).statusCode).toBe(401);
      logger.info('between invocations');
    });
    const [first, second, between] = lines;
    expect(lines).toHaveLength(3);
    expect(first).toMatchObject({ message: 'request done', status: 404, request_id: 'req-1', business_id: 'logged' });
    expect(second).toMatchObject({ message: 'request done', status: 401, request_id: 'req-2' });
    expect(second).not.toHaveProperty('business_id');
    expect(between).not.toHaveProperty('business_id');
    expect(between).not.toHaveProperty('request_id');
    expect(between).not.toHaveProperty('route');
  });

  it('name a business only once the token is verified: a token naming another business logs none', async () => {
    const forged = `${token.slice(0, 47)}${Buffer.from('someone-else').toString('base64url')}`;
    const lines = await logsOf(async () => {
      expect((await handler(event('req-3', `Bearer ${forged}`), context('aws-3'))).statusCode).toBe(401);
    });
    expect(lines).toEqual([expect.objectContaining({ message: 'request done', status: 401, request_id: 'req-3' })]);
    expect(lines[0]).not.toHaveProperty('business_id');
  });
});
