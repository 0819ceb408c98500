/**
 * `npm run load`: a fixed mixed workload against the local server (embedded,
 * in-memory DynamoDB Local), then a check that nothing was lost: every 201
 * is in the lists' exact totals. Prints throughput, latency percentiles and errors.
 *   LOAD_REQUESTS (default 3000), LOAD_CONNECTIONS (default 16),
 *   AUTH_CACHE_SECONDS (default 0 as locally; 60 is the deployed token cache)
 */
import autocannon from 'autocannon';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import { createLocalServer } from './lib/server';
import { buildBusiness } from '../src/domain/fixture';
import { parseFixture } from '../src/schemas/fixture';
import { importBusiness } from '../src/data/business-store';
import { issueToken } from '../src/data/token-store';
import { authCacheSeconds } from '../src/data/config';
import { dynamoStats } from '../src/data/client';

const API = '/services/api/v1';

async function main(): Promise<void> {
  const totalRequests = Number(process.env.LOAD_REQUESTS ?? 3000);
  const connections = Number(process.env.LOAD_CONNECTIONS ?? 16);
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.TABLE_NAME = 'load-test';
  const dynamo = await startDynamoLocal();
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
  const parsed = parseFixture(JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'demo.json'), 'utf8')));
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const { config, records } = buildBusiness(parsed.fixture);
  await importBusiness(config, records);
  const token = await issueToken(config.id, 'load');
  const server = createLocalServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  // A seed employee so job creation and reads have a target.
  const seed = await fetch(`${url}${API}/employees`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ first_name: 'Seed', last_name: 'Employee' }),
  });
  const seedId = ((await seed.json()) as { id: string }).id;

  let n = 0;
  const created: Record<string, number> = { employees: 0, applications: 0, jobs: 0 };
  const statuses: Record<number, number> = {};
  const mix: autocannon.Request[] = [
    { method: 'GET', path: `${API}/locations/hq` },
    { method: 'GET', path: `${API}/employees/${seedId}` },
    {
      method: 'POST',
      path: `${API}/employees`,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({ first_name: `Load${++n}`, last_name: 'Test', employee_number: `L-${n}` }),
      }),
      onResponse: (status) => {
        if (status === 201) created.employees = (created.employees ?? 0) + 1;
      },
    },
    { method: 'GET', path: `${API}/applications?job_id=cook-2026&page=2` },
    {
      method: 'POST',
      path: `${API}/applications`,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({
          first_name: 'App',
          last_name: `No${++n}`,
          email: `a${n}@example.com`,
          accept_terms_and_conditions: true,
          job_id: n % 2 ? 'cook-2026' : null,
        }),
      }),
      onResponse: (status) => {
        if (status === 201) created.applications = (created.applications ?? 0) + 1;
      },
    },
    {
      method: 'POST',
      path: `${API}/employee_jobs`,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({ employee_id: seedId, name: `Job ${++n}`, from: '2026-01-01' }),
      }),
      onResponse: (status) => {
        if (status === 201) created.jobs = (created.jobs ?? 0) + 1;
      },
    },
    { method: 'GET', path: `${API}/employees?page=3` },
  ];

  dynamoStats.reset();
  const result = await autocannon({ url, connections, amount: totalRequests, headers, requests: mix });
  const callsPerRequest = dynamoStats.calls / Math.max(1, result.requests.total);
  for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) statuses[Number(code)] = count.count ?? 0;

  const total = async (path: string): Promise<number> =>
    ((await (await fetch(`${url}${API}${path}`, { headers })).json()) as { total_entries: number }).total_entries;
  const employees = (await total('/employees')) - 1;
  const applications = await total('/applications');
  const jobs = await total(`/employee_jobs?employee_id=${seedId}`);
  const errors = result.errors + result.timeouts + result.non2xx;
  const lost =
    employees !== created.employees || applications !== created.applications || jobs !== created.jobs ? 'YES' : 'no';

  console.log(`requests      ${result.requests.total} (${connections} connections, ${result.duration.toFixed(1)} s)`);
  console.log(`throughput    ${result.requests.average.toFixed(0)} req/s`);
  console.log(`DynamoDB      ${callsPerRequest.toFixed(2)} calls/request (AUTH_CACHE_SECONDS=${authCacheSeconds()})`);
  console.log(`latency       p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`);
  console.log(`status codes  ${JSON.stringify(statuses)}`);
  console.log(
    `errors        ${errors} (transport ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx})`,
  );
  console.log(
    `created       employees ${created.employees}/${employees} listed, applications ${created.applications}/${applications}, jobs ${created.jobs}/${jobs}`,
  );
  console.log(`lost writes   ${lost}`);
  server.close();
  await dynamo.stop();
  process.exit(errors > 0 || lost === 'YES' ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
