import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import demo from '../../fixtures/demo.json';
import { withoutRecords } from '../support/demo-setup';
import { admin, adminProcess, NPM_RUN_ADMIN, TSX_ADMIN } from '../support/admin';
import { API, startApi, type TestApi } from '../support/harness';

/**
 * `npm run admin` (contract §10, §15). The commands run in this process
 * (test/support/admin.ts: the same arguments, exit codes and output lines);
 * the process itself is run where it is what is checked: one `npm run admin`
 * as docs/operations.md shows it, and the AWS target line, whose environment
 * (no endpoint, AWS credentials) must not touch this process's.
 */
let api: TestApi;
const dir = mkdtempSync(join(tmpdir(), 'fixture-'));

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/** npm prints its own warnings first; the tool's first line is the first one that is not npm's. */
const firstLine = (stderr: string): string | undefined =>
  stderr.split('\n').find((line) => line !== '' && !line.startsWith('npm warn'));
const localTarget = (): string => `Target: table ${process.env.TABLE_NAME} at ${process.env.DYNAMODB_ENDPOINT}`;

const fixtureFile = (name: string, content: unknown): string => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(content));
  return file;
};

describe('npm run admin -- import / revoke', () => {
  it('imports, prints {business_id, token} last, and is idempotent', async () => {
    const file = fixtureFile('acme.json', { ...withoutRecords(demo), business: { ...demo.business, id: 'acme' } });
    // As an operator runs it: npm, tsx, the tool's process, its exit code and its two streams. This file's
    // DynamoDB Local runs with -sharedDb; another AWS_REGION in the environment still writes to it (contract §10).
    const first = await adminProcess(NPM_RUN_ADMIN, { AWS_REGION: 'sa-east-1' }, 'import', file);
    expect(first.code).toBe(0);
    expect(firstLine(first.stderr)).toBe(localTarget());
    const last = JSON.parse(first.stdout.trim().split('\n').pop() ?? '{}');
    expect(last).toEqual({ business_id: 'acme', token: expect.stringMatching(/^hr_/) });
    const before = await api.request('GET', `${API}/locations/hq`, { token: last.token });
    expect(before.status).toBe(200);

    const second = await admin('import', file);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/0 items written/);
    const after = await api.request('GET', `${API}/locations/hq`, { token: last.token });
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    // What tenants see of the token (feed entries, webhooks) names the fixture file, not where it lies.
    const written = await api.request('POST', `${API}/employees`, {
      token: last.token,
      body: { first_name: 'Ida', last_name: 'Import' },
    });
    const changes = await api.request('GET', `${API}/changes?types=employee.created&limit=500`, { token: last.token });
    const entry = (changes.body.entries as { id: string; actor: unknown }[]).find((e) => e.id === written.body.id);
    expect(entry?.actor).toEqual({ type: 'token', token_id: expect.any(String), token_name: 'import acme.json' });

    const revoked = await admin('revoke', last.token);
    expect(revoked.code).toBe(0);
    expect(firstLine(revoked.stderr)).toBe(localTarget());
    expect((await api.request('GET', `${API}/locations/hq`, { token: last.token })).status).toBe(401);
  }, 60_000);

  it('refuses a broken fixture as a whole, naming each bad entry, writing nothing', async () => {
    const broken = {
      business: { id: 'broken', name: 'Broken', locales: ['de', 'en'], timezone: 'Europe/Vienna' },
      employee_statuses: [
        { id: 'a', default: true },
        { id: 'b', default: true },
      ],
      locations: [
        { id: 'x', parent_id: null, name_de: 'X' },
        { id: 'y', parent_id: 'ghost', name_de: 'Y' },
        { id: 'x', parent_id: null, name_de: 'X2' },
      ],
      employee_payout_fields: [
        { id: '1', type_of: 'gross' },
        { id: '2', type_of: 'gross' },
      ],
      departments: [{ id: 'd', name_it: 'Cucina' }],
    };
    const res = await admin('import', fixtureFile('broken.json', broken));
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('departments[0] (id "d"): unknown key "name_it"');
    const again = await admin('import', fixtureFile('broken2.json', { ...broken, departments: [] }));
    expect(again.stderr).toContain('employee_statuses[1] (id "b"): a second default status');
    expect(again.stderr).toContain('locations[1] (id "y"): unknown parent');
    expect(again.stderr).toContain('locations[2] (id "x"): duplicate id');
    expect(again.stderr).toContain('employee_payout_fields[1] (id "2"): payout type "gross" is already used');
    expect(again.stdout).not.toContain('token');
  }, 60_000);

  it('on AWS, says region and account first (account unknown unless the credentials carry it), without calling AWS', async () => {
    // No endpoint: AWS. Static credentials from the environment need no network; the missing file fails before any call.
    const aws = {
      DYNAMODB_ENDPOINT: undefined,
      AWS_PROFILE: undefined,
      AWS_CONFIG_FILE: join(dir, 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'example',
      TABLE_NAME: 'HrApi-prod-Table-X',
    };
    const withAccount = await adminProcess(
      TSX_ADMIN,
      { ...aws, AWS_ACCOUNT_ID: '123456789012' },
      'import',
      join(dir, 'absent.json'),
    );
    expect(withAccount.code).toBe(1);
    expect(firstLine(withAccount.stderr)).toBe(
      'Target: table HrApi-prod-Table-X in AWS region eu-central-1, account 123456789012',
    );
    const withoutAccount = await adminProcess(
      TSX_ADMIN,
      { ...aws, AWS_ACCOUNT_ID: undefined },
      'import',
      join(dir, 'absent.json'),
    );
    expect(firstLine(withoutAccount.stderr)).toBe(
      'Target: table HrApi-prod-Table-X in AWS region eu-central-1, account unknown',
    );
  }, 60_000);
});

describe('npm run admin -- token create / list / revoke (contract §15)', () => {
  interface Created {
    token: string;
    scopes: string[];
    expires_at: string;
  }
  interface Listed {
    name: string;
    scopes: string[];
    created_at: string;
    expires_at: string | null;
    hash_prefix: string;
    rate_limit: { requests: number; window_seconds: number };
  }
  const lastJson = <T>(stdout: string): T => JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as T;

  it('creates a scoped, expiring, named token, lists it without the secret, revokes it by hash prefix', async () => {
    expect(
      (
        await admin(
          'import',
          fixtureFile('tok.json', { ...withoutRecords(demo), business: { ...demo.business, id: 'tok' } }),
        )
      ).code,
    ).toBe(0);
    const created = await admin(
      'token',
      'create',
      'tok',
      '--scopes',
      'employees:read,reference:read',
      '--expires-in-days',
      '7',
      '--name',
      'payroll sync',
    );
    expect(created.code).toBe(0);
    expect(firstLine(created.stderr)).toBe(localTarget());
    const { token, scopes, expires_at } = lastJson<Created>(created.stdout);
    expect(token).toMatch(/^hr_/);
    expect(scopes).toEqual(['employees:read', 'reference:read']);
    const days = (Date.parse(expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    expect((await api.request('GET', `${API}/locations/hq`, { token })).status).toBe(200);
    const write = await api.request('POST', `${API}/employees`, { token, body: { first_name: 'A', last_name: 'B' } });
    expect(write.status).toBe(403);

    const listed = await admin('token', 'list', 'tok');
    expect(listed.code).toBe(0);
    const lines = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Listed);
    expect(listed.stdout).not.toContain(token);
    const mine = lines.find((l) => l.name === 'payroll sync');
    if (!mine) throw new Error(`not listed: ${listed.stdout}`);
    expect(mine).toEqual({
      name: 'payroll sync',
      scopes: ['employees:read', 'reference:read'],
      created_at: expect.stringMatching(/Z$/),
      expires_at,
      hash_prefix: expect.stringMatching(/^[0-9a-f]{12}$/),
      // The business's default for its tokens (contract §18): the demo fixture keeps 600 per 60 s.
      rate_limit: { requests: 600, window_seconds: 60 },
    });
    // The import's token is listed too, with every scope and no expiry.
    expect(lines.some((l) => l.scopes.length === 7 && l.expires_at === null)).toBe(true);

    const revoked = await admin('token', 'revoke', 'tok', mine.hash_prefix);
    expect(revoked.code).toBe(0);
    expect(lastJson<{ revoked: boolean }>(revoked.stdout)).toEqual({ revoked: true });
    expect((await api.request('GET', `${API}/locations/hq`, { token })).status).toBe(401);
    expect((await admin('token', 'list', 'tok')).stdout).not.toContain(mine.hash_prefix);
  }, 90_000);

  it("--rate-limit N/W sets the token's own limit: token list shows it, every answer says it (contract §18)", async () => {
    const created = await admin('token', 'create', 'tok', '--name', 'bulk sync', '--rate-limit', '50/10');
    expect(created.code).toBe(0);
    const { token } = lastJson<Created>(created.stdout);
    const answer = await api.request('GET', `${API}/locations/hq`, { token });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit-policy')).toBe('"token";q=50;w=10, "business";q=3000;w=60');
    const listed = (await admin('token', 'list', 'tok')).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Listed);
    expect(listed.find((l) => l.name === 'bulk sync')?.rate_limit).toEqual({ requests: 50, window_seconds: 10 });
  }, 90_000);

  it('refuses a bad --rate-limit with one line and exit code 2, writing nothing', async () => {
    const before = (await admin('token', 'list', 'tok')).stdout;
    // Every bad form is a unit case of parseTokenCommand (test/unit/token-commands.test.ts); here the tool's exit.
    for (const bad of ['60/9']) {
      const refused = await admin('token', 'create', 'tok', '--rate-limit', bad);
      expect({ bad, code: refused.code }).toEqual({ bad, code: 2 });
      const lines = refused.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('npm warn'));
      expect(lines).toEqual([expect.stringContaining('--rate-limit')]);
      expect(refused.stdout).not.toContain('hr_');
    }
    expect((await admin('token', 'list', 'tok')).stdout).toBe(before);
  }, 120_000);

  it('refuses unknown scopes and bad expiries before connecting, and an unknown business', async () => {
    const badScope = await admin('token', 'create', 'tok', '--scopes', 'employees:read,employees:delete');
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain('unknown scope employees:delete');
    expect(badScope.stderr).not.toContain('Target:');
    const badDays = await admin('token', 'create', 'tok', '--expires-in-days', '0');
    expect(badDays.code).toBe(2);
    expect(badDays.stderr).toContain('--expires-in-days must be a whole number');
    const unknown = await admin('token', 'create', 'no-such-business');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No business no-such-business');
    expect(unknown.stdout).not.toContain('hr_');
  }, 90_000);

  it('--fields TYPE=F1,F2 grants fields: token list shows them, the token reads only them (contract §25)', async () => {
    const created = await admin(
      'token',
      'create',
      'tok',
      '--name',
      'time tracking',
      '--scopes',
      'employees:read',
      '--fields',
      'employees=first_name,last_name,location_id,cf_12',
    );
    expect(created.code).toBe(0);
    const { token, fields } = lastJson<Created & { fields: unknown }>(created.stdout);
    expect(fields).toEqual({ employees: ['cf_12', 'first_name', 'last_name', 'location_id'] });
    const listed = (await admin('token', 'list', 'tok')).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Listed & { fields?: unknown });
    expect(listed.find((l) => l.name === 'time tracking')?.fields).toEqual(fields);
    // A token without a grant lists none.
    expect(listed.filter((l) => l.name !== 'time tracking').every((l) => l.fields === undefined)).toBe(true);
    const page = await api.request('GET', `${API}/employees?per_page=2`, { token });
    expect(page.status).toBe(200);
    for (const e of page.body.entries)
      expect(Object.keys(e).sort()).toEqual(
        ['cf_12', 'created_at', 'first_name', 'id', 'last_name', 'location_id', 'updated_at'].filter(
          (k) => k !== 'cf_12' || k in e,
        ),
      );
    expect(page.headers.get('restricted-fields')).toContain('iban');

    // An unknown field or type, or a custom field the business does not define: one line, exit 2, nothing written.
    const before = (await admin('token', 'list', 'tok')).stdout;
    for (const bad of ['employees=first_name,salary', 'payslips=amount', 'employees=first_name,cf_999']) {
      const refused = await admin('token', 'create', 'tok', '--fields', bad);
      expect({ bad, code: refused.code }).toEqual({ bad, code: 2 });
      const lines = refused.stderr
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('npm warn') && !l.startsWith('Target:'));
      expect(lines).toEqual([expect.stringMatching(/^token create: --fields unknown (field|type) /)]);
      expect(refused.stdout).not.toContain('hr_');
    }
    expect((await admin('token', 'list', 'tok')).stdout).toBe(before);
  }, 120_000);
});
