import fc from 'fast-check';
import {
  afterAttempt,
  DEFAULT_RETRY_DELAYS_SECONDS,
  isAllowedAddress,
  parseRetryDelays,
  urlTarget,
  wants,
  webhookIdOf,
  type DeliveryState,
} from '../../src/domain/webhooks';
import { urlPolicy } from '../../src/services/webhook-delivery';

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
    expect(afterAttempt(failed, 'c1', { ok: true }, 5, [1])).toMatchObject({
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
