import { keepingInReserve, remainingMs, runWithDeadline, untilHardDeadline } from '../../src/data/deadline';
import { inCallScope, observedCalls, recordCall } from '../../src/data/dynamo/call-scope';
import { currentOrigin, runWithOrigin, setWriteOrigin } from '../../src/data/write-origin';
import { ADMIN_ORIGIN, type WriteOrigin } from '../../src/domain/audit';
import { adminContext } from '../../src/services/request-context';

/**
 * The parts of the one request scope (src/data/request-scope.ts) behave as
 * separate stores did: a nested run replaces its own part only, and the
 * origin the auth step names deep inside the request is the request's.
 */
const token: WriteOrigin = { actor: { type: 'token', token_id: 'abc', token_name: 'ci' }, request_id: 'r-1' };

describe('request scope', () => {
  it('keeps the deadline, route and origin of the caller when a nested run sets another part', async () => {
    await runWithDeadline(10_000, () =>
      inCallScope('scope-test', () =>
        runWithOrigin(ADMIN_ORIGIN, async () => {
          await keepingInReserve(5_000, async () => {
            expect(remainingMs()).toBeLessThanOrEqual(5_000);
            recordCall('GetItemCommand', {});
            // Named inside a nested run, the origin is the request's for the rest of it.
            setWriteOrigin(token);
          });
          expect(remainingMs()).toBeGreaterThan(5_000);
          expect(currentOrigin()).toEqual(token);
          expect(observedCalls.has('scope-test GetItem -')).toBe(true);
        }),
      ),
    );
  });

  it('gives each concurrent request its own origin, and none outside a request', async () => {
    const seen = await Promise.all(
      ['a', 'b'].map((id) =>
        runWithOrigin(ADMIN_ORIGIN, async () => {
          await new Promise((r) => setTimeout(r, id === 'a' ? 20 : 0));
          setWriteOrigin({ ...token, request_id: id });
          await new Promise((r) => setTimeout(r, 10));
          return currentOrigin().request_id;
        }),
      ),
    );
    expect(seen).toEqual(['a', 'b']);
    expect(currentOrigin()).toEqual(ADMIN_ORIGIN);
    expect(remainingMs()).toBe(Infinity);
  });

  it('lets a write already sent run to the hard deadline, past the answer budget', () => {
    runWithDeadline(
      100,
      () => {
        expect(remainingMs()).toBeLessThanOrEqual(100);
        untilHardDeadline(() => expect(remainingMs()).toBeGreaterThan(1_000));
      },
      5_000,
    );
  });

  it("binds an admin context's idempotency to the body, and has none without a key", () => {
    const keyed = adminContext('b1', { method: 'POST', path: '/x', idempotencyKey: 'k-1' });
    expect(keyed.idempotency({ a: 1 })?.requestHash).toBe(keyed.idempotency({ a: 1 })?.requestHash);
    expect(keyed.idempotency({ a: 1 })?.requestHash).not.toBe(keyed.idempotency({ a: 2 })?.requestHash);
    expect(adminContext('b1').idempotency({ a: 1 })).toBeUndefined();
  });
});
