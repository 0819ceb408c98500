import fc from 'fast-check';
import {
  afterAttempt,
  DEFAULT_RETRY_DELAYS_SECONDS,
  parseRetryDelays,
  wants,
  webhookIdOf,
  type DeliveryState,
} from '../../src/domain/webhooks';
import { isAllowedAddress, urlTarget } from '../../src/domain/webhook-urls';
import { urlPolicy } from '../../src/services/webhook-urls';

const fresh: DeliveryState = { status: 'active', cursor: 'c0', attempts: 0, nextAttemptAt: 0, lastDeliveryError: null };
const fail = { ok: false, error: 'HTTP 500' } as const;

describe('retry schedule', () => {
  it('defaults to 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(parseRetryDelays(undefined)).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(parseRetryDelays(' ')).toBe(DEFAULT_RETRY_DELAYS_SECONDS);
  });
  it('WEBHOOK_RETRY_DELAYS overrides it; n delays = n retries', () => {
    expect(parseRetryDelays('0.01, 2,3')).toEqual([0.01, 2, 3]);
  });
  it('refuses a malformed override', () => {
    expect(() => parseRetryDelays('5,soon')).toThrow(/WEBHOOK_RETRY_DELAYS/);
    expect(() => parseRetryDelays('-1')).toThrow();
  });
});

describe('afterAttempt', () => {
  it('walks the default schedule, then disables with the last error', () => {
    let state = fresh;
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      state = afterAttempt(state, 'c1', fail, 1_000_000, DEFAULT_RETRY_DELAYS_SECONDS);
      expect(state.status).toBe('active');
      waits.push((state.nextAttemptAt - 1_000_000) / 1000);
    }
    expect(waits).toEqual([...DEFAULT_RETRY_DELAYS_SECONDS]);
    state = afterAttempt(
      state,
      'c1',
      { ok: false, error: 'no answer within 10 s' },
      2_000_000,
      DEFAULT_RETRY_DELAYS_SECONDS,
    );
    expect(state).toMatchObject({ status: 'disabled', cursor: 'c0', lastDeliveryError: 'no answer within 10 s' });
  });

  it('a success moves the cursor to the entry and resets the attempts', () => {
    const failed = afterAttempt(fresh, 'c1', fail, 0, [1]);
    expect(afterAttempt(failed, 'c1', { ok: true, status: 200 }, 5, [1])).toMatchObject({
      cursor: 'c1',
      attempts: 0,
      nextAttemptAt: 0,
      status: 'active',
    });
  });

  it('property: n delays give exactly n + 1 attempts; the cursor never moves on failure', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 10 }), fc.nat(), (delays, now) => {
        let state = fresh;
        let attempts = 0;
        while (state.status === 'active') {
          state = afterAttempt(state, 'next', fail, now, delays);
          attempts++;
          expect(state.cursor).toBe('c0');
          if (state.status === 'active') expect(state.nextAttemptAt).toBeGreaterThanOrEqual(now);
        }
        expect(attempts).toBe(delays.length + 1);
      }),
    );
  });

  it('property: delays between attempts are the configured ones, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 8 }), (delays) => {
        let state = fresh;
        const seen: number[] = [];
        for (let i = 0; i < delays.length; i++) {
          state = afterAttempt(state, 'x', fail, 0, delays);
          seen.push(state.nextAttemptAt / 1000);
        }
        expect(seen).toEqual(delays);
      }),
    );
  });
});

describe('webhook-id and type filter', () => {
  it('is stable per subscription and entry, distinct otherwise', () => {
    expect(webhookIdOf('wh_1', 'c9')).toBe(webhookIdOf('wh_1', 'c9'));
    expect(webhookIdOf('wh_1', 'c9')).not.toBe(webhookIdOf('wh_2', 'c9'));
    expect(webhookIdOf('wh_1', 'c9')).not.toBe(webhookIdOf('wh_1', 'c10'));
  });
  it('null types = all', () => {
    expect(wants(null, 'employee.created')).toBe(true);
    expect(wants(['employee.created'], 'application.created')).toBe(false);
  });
});

describe('URL and address policy', () => {
  const remote = { local: false };
  const local = { local: true };
  it('https only, except loopback http in local mode', () => {
    expect(urlTarget('https://hooks.example.com/x', remote)).toEqual({ host: 'hooks.example.com' });
    expect(urlTarget('http://hooks.example.com/x', remote)).toBeNull();
    expect(urlTarget('http://127.0.0.1:9/x', remote)).toBeNull();
    expect(urlTarget('http://127.0.0.1:9/x', local)).toEqual({ host: '127.0.0.1' });
    expect(urlTarget('http://localhost:9/x', local)).toEqual({ host: 'localhost' });
    expect(urlTarget('http://[::1]:9/x', local)).toEqual({ host: '[::1]' });
    expect(urlTarget('http://hooks.example.com/x', local)).toBeNull();
    expect(urlTarget('ftp://hooks.example.com/', local)).toBeNull();
    expect(urlTarget('https://user:pw@hooks.example.com/', remote)).toBeNull();
    expect(urlTarget('not a url', remote)).toBeNull();
  });
  it.each([
    '10.0.0.5',
    '172.16.3.4',
    '192.168.1.1',
    '127.0.0.1',
    '::1',
    '169.254.169.254',
    'fd00:ec2::254',
    'fe80::1',
    '224.0.0.1',
    'ff02::1',
    '0.0.0.0',
    '100.64.0.1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])('refuses %s', (address) => {
    expect(isAllowedAddress(address, remote)).toBe(false);
  });
  it('allows public unicast; loopback only locally, never private or metadata', () => {
    expect(isAllowedAddress('93.184.216.34', remote)).toBe(true);
    expect(isAllowedAddress('2606:2800:220:1::1', remote)).toBe(true);
    expect(isAllowedAddress('127.0.0.1', local)).toBe(true);
    expect(isAllowedAddress('::1', local)).toBe(true);
    expect(isAllowedAddress('10.0.0.5', local)).toBe(false);
    expect(isAllowedAddress('169.254.169.254', local)).toBe(false);
    expect(isAllowedAddress('not-an-ip', local)).toBe(false);
  });
});

describe('every spelling of a refused address (property)', () => {
  const remote = { local: false };
  const local = { local: true };
  const hex16 = (n: number): string => n.toString(16);
  const v4 = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
  /** The two 16-bit groups of an IPv4 address, e.g. a9fe:a9fe. */
  const groups = (n: number): [string, string] => [hex16(n >>> 16), hex16(n & 0xffff)];

  /** Refused IPv4 ranges as [first address, prefix length]; loopback is allowed locally. */
  const REFUSED_V4: readonly [string, number, 'loopback' | 'other'][] = [
    ['0.0.0.0', 8, 'other'],
    ['10.0.0.0', 8, 'other'],
    ['100.64.0.0', 10, 'other'],
    ['127.0.0.0', 8, 'loopback'],
    ['169.254.0.0', 16, 'other'],
    ['172.16.0.0', 12, 'other'],
    ['192.168.0.0', 16, 'other'],
    ['224.0.0.0', 4, 'other'],
    ['240.0.0.0', 4, 'other'],
  ];
  const toInt = (a: string): number => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  const inRange = ([base, bits]: readonly [string, number, unknown]): fc.Arbitrary<number> =>
    fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => toInt(base) + offset);
  const refusedV4 = fc.constantFrom(...REFUSED_V4).chain((range) => inRange(range).map((n) => ({ n, kind: range[2] })));
  const anyV4 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
  const word = fc.integer({ min: 0, max: 0xffff }).map(hex16);

  /** How an IPv6 text may be written: as is, upper case, or with every group spelt out. */
  const written = (address: string, style: 'as-is' | 'upper' | 'expanded'): string => {
    if (style === 'upper') return address.toUpperCase();
    if (style !== 'expanded' || address.includes('.')) return address;
    const [head = '', tail = ''] = address.split('::');
    const h = head ? head.split(':') : [];
    const t = address.includes('::') && tail ? tail.split(':') : [];
    const zeros = address.includes('::') ? Array(8 - h.length - t.length).fill('0') : [];
    return [...h, ...zeros, ...t].map((g) => g.padStart(4, '0')).join(':');
  };
  const style = fc.constantFrom('as-is' as const, 'upper' as const, 'expanded' as const);

  /** Forms that carry an IPv4 address for a translator or tunnel: refused whatever they carry. */
  const translated = (n: number, extra: string): string[] => {
    const [hi, lo] = groups(n);
    return [
      `::${v4(n)}`, // IPv4-compatible, dotted
      `::${hi}:${lo}`, // IPv4-compatible, hex
      `::ffff:0:${hi}:${lo}`, // SIIT (RFC 6145)
      `64:ff9b::${v4(n)}`, // NAT64 well-known prefix
      `64:ff9b::${hi}:${lo}`,
      `64:ff9b:1:${extra}::${hi}:${lo}`, // NAT64 local-use prefix
      `2002:${hi}:${lo}:${extra}::1`, // 6to4
      `2001:0:${hi}:${lo}:${extra}:0:${hex16((~n >>> 16) & 0xffff)}:${hex16(~n & 0xffff)}`, // Teredo
    ];
  };

  const refusedEverywhere = (address: string): void => {
    expect(isAllowedAddress(address, remote)).toBe(false);
    // The host as a URL spells it after normalisation is refused as well (subscribe and delivery read that).
    const host = new URL(`https://[${address}]/`).hostname;
    expect(isAllowedAddress(host.slice(1, -1), remote)).toBe(false);
  };

  it('translated forms (IPv4-compatible, SIIT, NAT64, 6to4, Teredo) are refused whatever IPv4 address they carry', () => {
    fc.assert(
      fc.property(anyV4, word, style, (n, extra, how) => {
        const zero = n === 0 || n === 1; // :: and ::1 are the unspecified and loopback addresses, not IPv4 forms
        for (const address of translated(n, extra).slice(zero ? 2 : 0)) {
          refusedEverywhere(written(address, how));
          if (!zero) expect(isAllowedAddress(written(address, how), local)).toBe(false);
        }
      }),
    );
  });

  it('a refused IPv4 address is refused in every IPv4-mapped spelling; a public one is allowed mapped', () => {
    fc.assert(
      fc.property(refusedV4, style, ({ n, kind }, how) => {
        const [hi, lo] = groups(n);
        for (const address of [v4(n), `::ffff:${v4(n)}`, `::ffff:${hi}:${lo}`, `0:0:0:0:0:ffff:${hi}:${lo}`]) {
          const spelt = address.includes(':') ? written(address, how) : address;
          expect(isAllowedAddress(spelt, remote)).toBe(false);
          expect(isAllowedAddress(spelt, local)).toBe(kind === 'loopback');
          if (spelt.includes(':')) refusedEverywhere(spelt);
        }
      }),
    );
    expect(isAllowedAddress('::ffff:93.184.216.34', remote)).toBe(true);
    expect(isAllowedAddress('::ffff:5db8:d822', remote)).toBe(true);
  });

  it.each([
    ['IPv4-compatible metadata', '::a9fe:a9fe'],
    ['IPv4-compatible dotted', '::169.254.169.254'],
    ['NAT64 local-use', '64:ff9b:1::a9fe:a9fe'],
    ['6to4 of 127.0.0.1', '2002:7f00:1::'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:5601:5601'],
  ])('examples: %s (%s)', (_what, address) => {
    expect(isAllowedAddress(address, remote)).toBe(false);
    expect(isAllowedAddress(address, local)).toBe(false);
  });
});

describe('local mode', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  it('is on only where the local server sets WEBHOOKS_ALLOW_LOOPBACK=1, never inside Lambda', () => {
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
    expect(urlPolicy()).toEqual({ local: false });
    process.env.WEBHOOKS_ALLOW_LOOPBACK = '1';
    expect(urlPolicy()).toEqual({ local: true });
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'hr-api-dispatch-webhooks';
    expect(urlPolicy()).toEqual({ local: false });
  });
});
