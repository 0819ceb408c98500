/* eslint-disable @typescript-eslint/no-explicit-any -- records and feed entries are arbitrary JSON */
import demo from '../../fixtures/demo.json';
import { API, startApi, type TestApi } from '../support/harness';
import { applyImportRows, importCellKinds, type ApplyRowsOptions } from '../../src/services/import-rows';
import { readImportRows } from '../../src/domain/import-rows';
import { readRowResults } from '../../src/data/import-store';
import { batchDelete, batchGet } from '../../src/data/dynamo/table-io';
import { keys } from '../../src/data/dynamo/keys';
import { employee, employeeJob } from '../../src/data/entities/employee';
import { application } from '../../src/data/entities/application';
import { readBusinessConfig } from '../../src/data/business-store';
import { translateFields } from '../../src/http/i18n/language';
import type { ImportType, ResultLine } from '../../src/domain/imports';
import type { WriteOrigin } from '../../src/domain/audit';

/**
 * The row applier of contract §22 on DynamoDB Local: each row takes its
 * single request's path (schemas, rules, uniqueness, messages), external ids
 * upsert, validate writes nothing, every written record has its feed entry
 * with the import's actor, and a row with a stored result is never applied
 * again.
 */
const BUSINESS = 'import-rows';
let api: TestApi;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: BUSINESS } });
});
afterAll(() => api.close());

const get = (path: string) => api.request('GET', `${API}${path}`, { token });

const origin = (importId: string): WriteOrigin => ({
  actor: { type: 'import', import_id: importId, token_id: 'abcdefabcdef', token_name: 'bulk' },
  request_id: `req-${importId}`,
});

async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

async function run(
  type: ImportType,
  file: string,
  options: Partial<ApplyRowsOptions> & { format?: 'csv' | 'jsonl' } = {},
): Promise<ResultLine[]> {
  const config = await readBusinessConfig(BUSINESS);
  const rows = readImportRows(bytes(file), options.format ?? 'csv', importCellKinds(type, config));
  const out: ResultLine[] = [];
  for await (const line of applyImportRows(rows, {
    businessId: BUSINESS,
    type,
    mode: 'apply',
    origin: origin(options.importId ?? 'imp-1'),
    ...options,
  }))
    out.push(line);
  return out;
}

async function feedSince(cursor: string | undefined): Promise<{ entries: any[]; next: string }> {
  const res = await get(`/changes?limit=500${cursor ? `&after=${cursor}` : ''}`);
  return { entries: res.body.entries, next: res.body.next_cursor };
}

describe('applying rows (contract §22)', () => {
  let start: string | undefined;
  beforeAll(async () => {
    start = (await feedSince(undefined)).next;
  });

  it('validates each row as its POST, in the import language, and never stops at a bad row', async () => {
    const file = [
      'external_id;first_name;last_name;employee_number;gender;birthday',
      'e-1;Anna;Huber;N-1;female;1990-02-03',
      'e-2;;Moser;N-2;robot;2023-02-30',
      'e-3;Karl;Gruber;N-1;;',
      'bad id;Lea;Berg;;;',
      'e-4;Ida;Wolf;N-4;;',
    ].join('\n');
    const lines = await run('employees', file, {
      importId: 'imp-1',
      translate: (fields) => translateFields(fields, 'de'),
    });
    expect(lines.map((l) => [l.row, l.external_id, l.result])).toEqual([
      [1, 'e-1', 'created'],
      [2, 'e-2', 'failed'],
      [3, 'e-3', 'failed'],
      [4, null, 'failed'],
      [5, 'e-4', 'created'],
    ]);
    expect(lines[1]?.errors).toEqual({
      first_name: ['muss ausgefüllt werden'],
      gender: ['ist kein gültiger Wert'],
      birthday: ['ist nicht gültig'],
    });
    // Unique against stored records and earlier rows of the file.
    expect(lines[2]?.errors).toEqual({ employee_number: ['ist bereits vergeben'] });
    expect(lines[3]?.errors).toEqual({ external_id: ['ist nicht gültig'] });
    const anna = await get(`/employees/${lines[0]?.id}`);
    expect(anna.body).toMatchObject({ first_name: 'Anna', employee_number: 'N-1', birthday: '1990-02-03' });

    // Every stored result, in row order: what a resumed run and the results file read.
    const stored = await readRowResults(BUSINESS, 'imp-1', 0);
    expect(stored.lines.map((l) => l.row)).toEqual([1, 2, 3, 4, 5]);
  });

  it('a re-run updates what changed, leaves the rest unchanged, and applies no row of one import twice', async () => {
    const file = [
      'external_id,first_name,last_name,employee_number',
      'e-1,Anna,Huber-Berg,N-1',
      'e-4,Ida,Wolf,N-4',
      'e-5,Max,Neu,N-1',
    ].join('\n');
    const first = await run('employees', file, { importId: 'imp-2' });
    expect(first.map((l) => l.result)).toEqual(['updated', 'unchanged', 'failed']);
    const before = await get(`/employees/${first[1]?.id}`);
    // The same import again (a resumed run): stored results come back, nothing is applied again.
    const again = await run('employees', file, { importId: 'imp-2' });
    expect(again).toEqual(first);
    expect((await get(`/employees/${first[1]?.id}`)).body.updated_at).toBe(before.body.updated_at);
    expect((await get(`/employees/${first[0]?.id}`)).body.last_name).toBe('Huber-Berg');
  });

  it('validate mode reports what apply would do and writes nothing', async () => {
    const total = (await get('/employees')).body.total_entries;
    const file =
      '{"external_id":"e-1","last_name":"X"}\n{"first_name":"V","last_name":"W","employee_number":"N-9"}\n{"first_name":"V","last_name":"W","employee_number":"N-9"}\n';
    const lines = await run('employees', file, { format: 'jsonl', mode: 'validate', importId: 'imp-3' });
    expect(lines.map((l) => [l.result, l.id])).toEqual([
      ['updated', expect.any(String)],
      ['created', null],
      ['failed', null],
    ]);
    expect(lines[2]?.errors).toEqual({ employee_number: ['has already been taken'] });
    expect((await get('/employees')).body.total_entries).toBe(total);
  });

  it('jobs name their employee by employee_external_id; a job with a known external_id is skipped', async () => {
    const file = [
      'external_id,employee_external_id,name,from,time_table,time_percentage',
      'j-1,e-1,Cook,2026-01-01,"[8,8,8,8,8,0,0]",80',
      'j-1,e-1,Cook,2026-01-01,,',
      'j-2,e-404,Cook,2026-01-01,,',
      'j-3,e-4,Cook,2026-13-01,"[1]",',
    ].join('\n');
    const lines = await run('employee_jobs', file, { importId: 'imp-4' });
    expect(lines.map((l) => l.result)).toEqual(['created', 'skipped', 'failed', 'failed']);
    expect(lines[2]?.errors).toEqual({ employee_external_id: ['does not exist'] });
    expect(lines[3]?.errors).toEqual({ from: ['is invalid'], time_table: ['is invalid'] });
    const job = await get(`/employee_jobs/${lines[0]?.id}`);
    expect(job.body).toMatchObject({ time_table: [8, 8, 8, 8, 8, 0, 0], time_percentage: 80 });
    const anna = await get(`/employees/${job.body.employee_id}`);
    expect(anna.body.first_employee_job_from).toBe('2026-01-01');
  });

  it('an external id whose employee is gone (a sandbox reset keeps the ids): its jobs fail, its row creates it anew', async () => {
    const [made] = await run('employees', 'external_id,first_name,last_name\ngone-1,Gina,Gone\n', {
      importId: 'imp-g1',
    });
    await batchDelete([keys.record(BUSINESS, 'employee', String(made?.id))]);
    const jobs = await run('employee_jobs', 'employee_external_id,name,from\ngone-1,Cook,2026-01-01\n', {
      importId: 'imp-g2',
    });
    expect(jobs.map((l) => [l.result, l.errors])).toEqual([['failed', { employee_external_id: ['does not exist'] }]]);
    const [again] = await run('employees', 'external_id,first_name,last_name\ngone-1,Gina,Back\n', {
      importId: 'imp-g3',
    });
    expect(again).toMatchObject({ result: 'created', external_id: 'gone-1' });
    expect(again?.id).not.toBe(made?.id);
    expect((await get(`/employees/${again?.id}`)).body.last_name).toBe('Back');
    // The external id names the new record now.
    const [updated] = await run('employees', 'external_id,first_name\ngone-1,Gia\n', { importId: 'imp-g4' });
    expect(updated).toMatchObject({ result: 'updated', id: again?.id });
  });

  it('applications: created, then updated by external_id', async () => {
    const created = await run(
      'applications',
      '{"external_id":"a-1","first_name":"Eva","last_name":"Ried","email":"eva@example.com","accept_terms_and_conditions":true}\n{"first_name":"No","last_name":"Terms","email":"x@example.com"}\n',
      { format: 'jsonl', importId: 'imp-5' },
    );
    expect(created.map((l) => l.result)).toEqual(['created', 'failed']);
    expect(created[1]?.errors).toEqual({ accept_terms_and_conditions: ['must be accepted'] });
    const updated = await run('applications', '{"external_id":"a-1","phone":"+39 1"}\n', {
      format: 'jsonl',
      importId: 'imp-6',
    });
    expect(updated.map((l) => [l.result, l.id])).toEqual([['updated', created[0]?.id]]);
  });

  it('applications in chunks: every list counts and orders each created row once, a failed row nowhere', async () => {
    const jobs = ['cook-2026', 'waiter-2026', null];
    // Three chunks and a bit (APPLICATION_CHUNK rows each), a failing row among them.
    const rows = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        external_id: `chunk-${i}`,
        first_name: `C${i}`,
        last_name: 'Chunk',
        email: `c${i}@example.com`,
        accept_terms_and_conditions: i !== 17,
        ...(jobs[i % 3] ? { job_id: jobs[i % 3] } : {}),
        application_status_id: i % 4 === 1 ? 'interview' : 'new',
      }),
    );
    const filters = [
      '',
      'job_id=cook-2026',
      'job_id=waiter-2026',
      'job_id=null',
      'application_status_id=new',
      'application_status_id=interview',
    ];
    const totals = async () =>
      Promise.all(filters.map(async (f) => (await get(`/applications?per_page=1&${f}`)).body.total_entries as number));
    const before = await totals();
    const since = new Date(Date.now() - 1).toISOString();
    const lines = await run('applications', `${rows.join('\n')}\n`, { format: 'jsonl', importId: 'imp-chunks' });
    expect(lines.map((l) => l.result)).toEqual(rows.map((_, i) => (i === 17 ? 'failed' : 'created')));
    const made = lines.filter((l) => l.result === 'created').map((l) => l.id);
    expect(new Set(made).size).toBe(39);
    const bodies = rows.map((r) => JSON.parse(r) as Record<string, unknown>);
    const want = (keep: (b: Record<string, unknown>) => boolean) => bodies.filter((b, i) => i !== 17 && keep(b)).length;
    expect((await totals()).map((t, i) => t - (before[i] ?? 0))).toEqual([
      39,
      want((b) => b.job_id === 'cook-2026'),
      want((b) => b.job_id === 'waiter-2026'),
      want((b) => b.job_id === undefined),
      want((b) => b.application_status_id === 'new'),
      want((b) => b.application_status_id === 'interview'),
    ]);
    // The order of writes holds exactly the new records, in row order (their created_at order), on every page.
    const order: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await get(`/applications?updated_at_since=${encodeURIComponent(since)}&per_page=15&page=${page}`);
      expect(res.body.total_entries).toBe(39);
      order.push(...res.body.entries.map((e: { id: string }) => e.id));
    }
    expect(order).toEqual(made);
    const cooks = await get(`/applications?job_id=cook-2026&per_page=100&page=1`);
    expect(cooks.body.entries.map((e: { id: string }) => e.id).slice(-want((b) => b.job_id === 'cook-2026'))).toEqual(
      lines.filter((l, i) => l.result === 'created' && bodies[i]?.job_id === 'cook-2026').map((l) => l.id),
    );
    const shown = await get(`/applications/${made[20]}`);
    expect(shown.body).toMatchObject({ first_name: 'C21', job_id: 'cook-2026', application_status_id: 'interview' });

    // Validating the same rows changed (updates) and new ones writes nothing, not even a reservation of positions.
    const sequence = keys.counter(BUSINESS, 'applications-sequence');
    const [reservedBefore] = await batchGet([sequence]);
    const again = await run(
      'applications',
      `${rows.slice(0, 3).join('\n')}\n{"external_id":"chunk-40","phone":"1"}\n`,
      {
        format: 'jsonl',
        importId: 'imp-chunks-v',
        mode: 'validate',
      },
    );
    expect(again.map((l) => l.result)).toEqual(['unchanged', 'unchanged', 'unchanged', 'failed']);
    const changed = await run('applications', '{"external_id":"chunk-1","phone":"+39 2"}\n', {
      format: 'jsonl',
      importId: 'imp-chunks-v2',
      mode: 'validate',
    });
    expect(changed.map((l) => [l.result, l.id])).toEqual([['updated', made[1]]]);
    expect(await batchGet([sequence])).toEqual([reservedBefore]);
    expect((await get(`/applications/${made[1]}`)).body.phone).not.toBe('+39 2');
  });

  it('validating writes nothing, not even a reservation of list positions', async () => {
    // Records whose external ids stay after they were erased: validating such a row checks it as a create again.
    const [emp] = await run('employees', 'external_id,first_name,last_name\nerased-e,Ed,Erased\n', {
      importId: 'imp-v1',
    });
    const [app] = await run(
      'applications',
      '{"external_id":"erased-a","first_name":"Al","last_name":"Erased","email":"al@example.com","accept_terms_and_conditions":true}\n',
      { format: 'jsonl', importId: 'imp-v2' },
    );
    await batchDelete([
      keys.record(BUSINESS, 'employee', String(emp?.id)),
      keys.record(BUSINESS, 'application', String(app?.id)),
    ]);
    const sequences = [employee.sequence, employeeJob.sequence, application.sequence].map((list) =>
      keys.counter(BUSINESS, list),
    );
    const before = await batchGet(sequences);
    const validate = { mode: 'validate' as const, importId: 'imp-v3' };
    expect(
      (await run('employee_jobs', 'employee_external_id,name,from\ne-1,Cook,2026-02-01\n', validate))[0]?.result,
    ).toBe('created');
    expect((await run('employees', 'external_id,first_name,last_name\nerased-e,Ed,Again\n', validate))[0]?.result).toBe(
      'created',
    );
    const [again] = await run(
      'applications',
      '{"external_id":"erased-a","first_name":"Al","last_name":"Again","email":"al@example.com","accept_terms_and_conditions":true}\n',
      { ...validate, format: 'jsonl' },
    );
    expect(again?.result).toBe('created');
    expect(await batchGet(sequences)).toEqual(before);
  });

  it('every write has its feed entry with the import as actor and the creating request id', async () => {
    const { entries } = await feedSince(start);
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      expect(e.actor).toMatchObject({ type: 'import', token_id: 'abcdefabcdef', token_name: 'bulk' });
      expect(e.request_id).toBe(`req-${e.actor.import_id}`);
    }
    const kinds = entries.map((e) => `${e.type} ${e.actor.import_id}`);
    expect(kinds.filter((k) => k === 'employee.created imp-1')).toHaveLength(2);
    expect(kinds.filter((k) => k.startsWith('employee.updated imp-2'))).toHaveLength(1);
    expect(kinds.filter((k) => k.includes('imp-3'))).toHaveLength(0);
    expect(kinds.filter((k) => k === 'employee_job.created imp-4')).toHaveLength(1);
  });
});

describe('employee job rows in chunks (EMPLOYEE_JOB_CHUNK rows a transaction)', () => {
  const post = (path: string, body: unknown) => api.request('POST', `${API}${path}`, { token, body });
  const employee = async (first: string): Promise<string> =>
    (await post('/employees', { first_name: first, last_name: 'Jobs' })).body.id;
  const versionOf = (etag: string | null): string =>
    Buffer.from(String(etag).replace(/"/g, ''), 'base64url').toString().split(':')[1] ?? '';

  it('each row as its POST; the employees, their job lists and feed entries end as single creates leave them', async () => {
    const cursor = (await feedSince(undefined)).next;
    const [x, y, s, x2, y2] = [
      await employee('X'),
      await employee('Y'),
      await employee('S'),
      await employee('X2'),
      await employee('Y2'),
    ];
    // Jobs of X and Y, each supervising the other (both employees are updated in the chunk), across the chunk
    // boundary after row 12; a bad date and an unknown employee among them.
    type Job = Record<string, unknown> & { who: 'x' | 'y' };
    const jobs: Job[] = [
      { who: 'x', name: 'Cook', from: '2015-01-01', to: '2016-12-31', department_id: 'kitchen', supervisor_id: 'y' },
      { who: 'y', name: 'Waiter', from: '2020-03-01', location_id: 'terrace', supervisor_id: 'x' },
      { who: 'x', name: 'Chef', from: '2017-01-01', department_id: 'kitchen', supervisor_id: 's', cf_21: 14.5 },
      { who: 'x', name: 'Bad', from: '2020-02-30' },
      { who: 'y', name: 'Season', from: '2018-06-01', to: '2018-09-30', job_type: 'seasonal' },
      { who: 'x', name: 'Overlap', from: '2016-06-01', to: '2017-06-30', time_type: 'part_time' },
      { who: 'y', name: 'Host', from: '2021-01-01', to: '2021-12-31', supervisor_id: 's' },
      { who: 'x', name: 'Head chef', from: '2031-01-01' },
      { who: 'y', name: 'Bar', from: '2019-01-01', to: '2019-12-31' },
      { who: 'y', name: 'Floor', from: '2022-01-01', supervisor_id: 'x', department_id: 'service' },
      { who: 'x', name: 'Trainer', from: '2024-02-01', to: '2024-03-31' },
      { who: 'y', name: 'Late', from: '2023-05-01', to: '2030-01-01' },
      { who: 'x', name: 'Mentor', from: '2025-01-01', supervisor_id: 'y' },
      { who: 'y', name: 'Lead', from: '2026-01-01', supervisor_id: 'x', location_id: 'restaurant' },
    ];
    const body = (job: Job, ids: Record<string, string>): Record<string, unknown> => {
      const { who, supervisor_id, ...rest } = job;
      return {
        ...rest,
        employee_id: ids[who],
        ...(typeof supervisor_id === 'string' ? { supervisor_id: ids[supervisor_id] } : {}),
      };
    };
    const rows = [
      ...jobs.slice(0, 5).map((j) => JSON.stringify(body(j, { x, y, s }))),
      JSON.stringify({ employee_id: 'no-such-employee', name: 'Ghost', from: '2020-01-01' }),
      ...jobs.slice(5).map((j) => JSON.stringify(body(j, { x, y, s }))),
    ];
    const lines = await run('employee_jobs', `${rows.join('\n')}\n`, { format: 'jsonl', importId: 'imp-jobs' });
    expect(lines.map((l) => l.result)).toEqual(rows.map((_, i) => (i === 3 || i === 5 ? 'failed' : 'created')));
    expect(lines[3]?.errors).toEqual({ from: ['is invalid'] });
    expect(lines[5]?.errors).toEqual({ employee_id: ['does not exist'] });

    // The same jobs for X2 and Y2 through POST /employee_jobs, one by one.
    for (const job of jobs.filter((j) => j.name !== 'Bad'))
      expect((await post('/employee_jobs', body(job, { x: x2, y: y2, s }))).status).toBe(201);

    const twin = (value: unknown): unknown => JSON.parse(JSON.stringify(value).split(x2).join(x).split(y2).join(y));
    // What two records of the same history share: all but their ids, names and timestamps.
    const bare = (record: any) =>
      Object.fromEntries(
        Object.entries(record).filter(
          ([k]) => !['id', 'first_name', 'employee_id', 'created_at', 'updated_at'].includes(k),
        ),
      );
    for (const [a, b] of [
      [x, x2],
      [y, y2],
    ] as const) {
      const [one, two] = [await get(`/employees/${a}`), await get(`/employees/${b}`)];
      expect(bare(one.body)).toEqual(twin(bare(two.body)));
      expect(versionOf(one.headers.get('etag'))).toBe(versionOf(two.headers.get('etag')));
      const [listA, listB] = [
        await get(`/employee_jobs?employee_id=${a}`),
        await get(`/employee_jobs?employee_id=${b}`),
      ];
      expect(listA.body.total_entries).toBe(
        jobs.filter((j) => j.name !== 'Bad' && (a === x) === (j.who === 'x')).length,
      );
      expect(listA.body.entries.map(bare)).toEqual(twin(listB.body.entries.map(bare)));
    }

    // One employee_job.created and one employee.updated per job, in the same order with the same changes.
    const { entries } = await feedSince(cursor);
    const of = (ids: string[]) =>
      entries
        .filter((e) => e.type.startsWith('employee_job.') || (e.type === 'employee.updated' && ids.includes(e.id)))
        .filter((e) => ids.includes(e.type === 'employee.updated' ? e.id : e.data.employee_id))
        .map((e) => [e.type, e.changed_fields ?? null, bare(e.data)]);
    const imported = of([x, y]);
    expect(imported).toHaveLength(2 * (jobs.length - 1));
    expect(imported).toEqual(twin(of([x2, y2])));
    const jobIds = lines.filter((l) => l.result === 'created').map((l) => l.id);
    expect(new Set(jobIds).size).toBe(jobs.length - 1);
  });
});
