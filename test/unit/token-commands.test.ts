import { parseTokenCommand } from '../../scripts/lib/token-commands';
import { authCacheSeconds } from '../../src/data/config';
import { SCOPES } from '../../src/domain/scopes';

describe('npm run admin -- token ... arguments (contract §15)', () => {
  it('create: scopes, expiry and name; every scope when none are named', () => {
    expect(
      parseTokenCommand([
        'create',
        'acme',
        '--scopes',
        'employees:read, reference:read',
        '--expires-in-days',
        '30',
        '--name',
        'sync',
      ]),
    ).toEqual({
      kind: 'create',
      businessId: 'acme',
      scopes: ['employees:read', 'reference:read'],
      expiresInDays: 30,
      name: 'sync',
    });
    expect(parseTokenCommand(['create', 'acme'])).toEqual({ kind: 'create', businessId: 'acme' });
    expect(parseTokenCommand(['create', 'acme', '--scopes', SCOPES.join(',')])).toMatchObject({ scopes: [...SCOPES] });
  });

  it('create --rate-limit N/W: N 1..100000 per W 10..3600 s, else one line naming the option (contract §18)', () => {
    expect(parseTokenCommand(['create', 'acme', '--rate-limit', '50/10'])).toEqual({
      kind: 'create',
      businessId: 'acme',
      rateLimit: { requests: 50, windowSeconds: 10 },
    });
    for (const bad of ['0/10', '100001/10', '10/0', '10/9', '600/1', '10/3601', '10', '10/1.5', 'ten/60', ''])
      expect(parseTokenCommand(['create', 'acme', '--rate-limit', bad])).toEqual(
        expect.stringMatching(/^token create: --rate-limit [^\n]+$/),
      );
  });

  it('create --fields TYPE=F1,F2 (repeatable): the grants per type, sorted; always-granted fields need no naming (§25)', () => {
    expect(
      parseTokenCommand([
        'create',
        'acme',
        '--fields',
        'employees=last_name,first_name,cf_12',
        '--fields',
        'applications=first_name, application_status_id',
      ]),
    ).toEqual({
      kind: 'create',
      businessId: 'acme',
      fields: {
        employees: ['cf_12', 'first_name', 'last_name'],
        applications: ['application_status_id', 'first_name'],
      },
    });
    expect(parseTokenCommand(['create', 'acme', '--fields', 'employee_jobs=name,from'])).toMatchObject({
      fields: { employee_jobs: ['from', 'name'] },
    });
  });

  it.each([
    [['--fields', 'employees=first_name,salary'], 'token create: --fields unknown field salary of employees'],
    [
      ['--fields', 'locations=name'],
      'token create: --fields unknown type locations in locations=name; types are employees, employee_jobs, applications',
    ],
    [['--fields', 'employees='], 'token create: --fields employees names no field (TYPE=F1,F2)'],
    [['--fields', 'employees'], 'token create: --fields employees names no field (TYPE=F1,F2)'],
    [['--fields', 'applications=job_idd'], 'token create: --fields unknown field job_idd of applications'],
    [['--fields', 'employees=cf_x'], 'token create: --fields unknown field cf_x of employees'],
    [
      ['--fields', 'employees=first_name', '--fields', 'employees=last_name'],
      'token create: --fields names employees twice',
    ],
  ])('create %j is refused with one line: %s', (args, message) => {
    expect(parseTokenCommand(['create', 'acme', ...args])).toBe(message);
  });

  it('list and revoke', () => {
    expect(parseTokenCommand(['list', 'acme'])).toEqual({ kind: 'list', businessId: 'acme' });
    expect(parseTokenCommand(['revoke', 'acme', '0123abcd4567'])).toEqual({
      kind: 'revoke',
      businessId: 'acme',
      hashPrefix: '0123abcd4567',
    });
  });

  it.each([
    [['create'], 'BUSINESS_ID is required'],
    [['create', 'acme', '--scopes', 'employees:delete'], 'unknown scope employees:delete'],
    [['create', 'acme', '--scopes', ''], 'unknown scope'],
    [['create', 'acme', '--expires-in-days', '0'], '--expires-in-days must be a whole number from 1 to 3650'],
    [['create', 'acme', '--expires-in-days', '1.5'], '--expires-in-days must be a whole number'],
    [['create', 'acme', '--expires-in-days', '99999'], '--expires-in-days must be a whole number'],
    [['create', 'acme', '--name', ' '], '--name must not be empty'],
    [['create', 'acme', '--name', 'x'.repeat(65)], '--name must be at most 64 characters'],
    [['create', 'acme', '--colour', 'red'], "Unknown option '--colour'"],
    [['create', 'acme', 'extra'], 'unexpected argument extra'],
    [['list', 'acme', '--scopes', 'x'], 'token list takes only BUSINESS_ID'],
    [['revoke', 'acme'], 'token revoke takes BUSINESS_ID HASH_PREFIX'],
    [['revoke', 'acme', 'hr_secret-token'], 'not the token'],
    [['rotate', 'acme'], 'unknown subcommand rotate'],
  ])('%j is refused: %s', (argv, message) => {
    const result = parseTokenCommand(argv);
    expect(typeof result).toBe('string');
    expect(result).toContain(message);
  });
});

describe('AUTH_CACHE_SECONDS', () => {
  const previous = process.env.AUTH_CACHE_SECONDS;
  afterEach(() => {
    if (previous === undefined) delete process.env.AUTH_CACHE_SECONDS;
    else process.env.AUTH_CACHE_SECONDS = previous;
  });

  it('is 0 (no caching) when unset, the seconds given otherwise', () => {
    delete process.env.AUTH_CACHE_SECONDS;
    expect(authCacheSeconds()).toBe(0);
    process.env.AUTH_CACHE_SECONDS = '60';
    expect(authCacheSeconds()).toBe(60);
  });

  it.each(['-1', '1.5', 'sixty', '60s'])('refuses %s loudly', (value) => {
    process.env.AUTH_CACHE_SECONDS = value;
    expect(() => authCacheSeconds()).toThrow(/AUTH_CACHE_SECONDS must be a whole number/);
  });
});
