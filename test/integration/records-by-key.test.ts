/**
 * List pages read key-only index entries, then the records by key (issue 19,
 * item 5). Between the two calls a record may be erased or moved (on AWS the
 * index also lags behind the table): such an entry is left out like a hole,
 * in the entries' order, never shown stale and never a 500.
 */
import { application } from '../../src/data/entities/application';
import { partitionOf } from '../../src/data/entities/entity';
import { dynamoStats } from '../../src/data/dynamo/client';
import { readEntries, recordsOf } from '../../src/data/lists/store';
import { API, startApi, type TestApi } from '../support/harness';

const fixture = {
  business: { id: 'keyco', name: 'Key Co', locales: ['en'], timezone: 'Europe/Rome' },
  application_statuses: [
    { id: 'new', name_en: 'New', default: true },
    { id: 'hired', name_en: 'Hired' },
  ],
  job_openings: [{ id: 'cook', name_en: 'Cook' }],
  application_fields: [],
};
const BUSINESS = 'keyco';

let api: TestApi;
let token: string;
const ids: string[] = [];

beforeAll(async () => {
  api = await startApi();
  token = await api.provision(fixture);
  for (let i = 0; i < 4; i++) {
    const res = await api.request('POST', `${API}/applications`, {
      token,
      body: { accept_terms_and_conditions: true, first_name: 'Ada', last_name: `No ${i}`, email: `a${i}@example.com` },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
}, 60_000);
afterAll(() => api.close());

const idsOf = (items: readonly Record<string, unknown>[]): string[] => items.map((i) => String(i.id));

it('the entries carry keys only, no name or email (an update does not rewrite them)', async () => {
  const entries = await readEntries(partitionOf(application.patterns.byPosition, { businessId: BUSINESS }), {
    from: 1,
    limit: 4,
  });
  expect(entries).toHaveLength(4);
  for (const e of entries) {
    expect(e).not.toHaveProperty('first_name');
    expect(e).not.toHaveProperty('email');
  }
  expect(idsOf(await recordsOf(application.patterns.byPosition.index, entries))).toEqual(ids);
});

it('a record erased between the Query and the read by key is a hole, the others keep their order', async () => {
  const entries = await readEntries(partitionOf(application.patterns.byPosition, { businessId: BUSINESS }), {
    from: 1,
    limit: 4,
  });
  const del = await api.request('DELETE', `${API}/applications/${ids[1]}`, { token });
  expect(del.status).toBe(204);
  expect(idsOf(await recordsOf(application.patterns.byPosition.index, entries))).toEqual([ids[0], ids[2], ids[3]]);
});

it('a record that changed status or moved in the order of writes since its entry was read is left out', async () => {
  const ofNew = await readEntries(
    partitionOf(application.patterns.byStatus, { businessId: BUSINESS, statusId: 'new' }),
    { from: 1, limit: 10 },
  );
  const byUpdate = await readEntries(partitionOf(application.patterns.updatedSince, { businessId: BUSINESS }), {
    from: 1,
    limit: 10,
  });
  const put = await api.request('PUT', `${API}/applications/${ids[2]}`, {
    token,
    body: { application_status_id: 'hired' },
  });
  expect(put.status).toBe(200);
  expect(idsOf(await recordsOf(application.patterns.byStatus.index, ofNew))).toEqual([ids[0], ids[3]]);
  expect(idsOf(await recordsOf(application.patterns.updatedSince.index, byUpdate))).toEqual([ids[0], ids[3]]);
  // The next request is exact: the page shows the record where it is now.
  const page = await api.request('GET', `${API}/applications?application_status_id=hired`, { token });
  expect(page.status).toBe(200);
  expect(idsOf(page.body.entries)).toEqual([ids[2]]);
});

it('a page reads its records, and the config with them, eventually consistent: half a read unit each (npm run bench:cost)', async () => {
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  dynamoStats.keepLog = true;
  try {
    dynamoStats.reset();
    const res = await api.request('GET', `${API}/applications?per_page=2`, { token });
    expect(res.status).toBe(200);
    expect(res.body.entries).toHaveLength(2);
    const query = dynamoStats.log.findIndex((c) => c.command === 'QueryCommand');
    const records = dynamoStats.log.slice(query + 1).find((c) => c.command === 'BatchGetItemCommand');
    expect(query).toBeGreaterThanOrEqual(0);
    // Two records, the config and the token (this file reads it on every request).
    expect(records?.read).toBe(2);
  } finally {
    dynamoStats.keepLog = false;
    delete process.env.DYNAMODB_CAPACITY_DETAIL;
  }
});
