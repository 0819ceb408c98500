import fc from 'fast-check';
import { heldByOthers, heldKeys, releaseTurns, takeTurns, untilWanted } from '../../scripts/lib/process-turns';

const tick = () => new Promise((r) => setImmediate(r));

afterEach(() => expect(heldKeys()).toEqual([]));

describe('turns of the writers of one process on an item', () => {
  it('go first come first served: each writer gets the turn when the one before it releases it', async () => {
    const [a, b, c] = [Symbol('a'), Symbol('b'), Symbol('c')];
    expect(await takeTurns(['k'], a, Infinity)).toBe('free');
    const order: string[] = [];
    const second = takeTurns(['k'], b, Infinity).then((t) => order.push(`b ${t}`));
    const third = takeTurns(['k'], c, Infinity).then((t) => order.push(`c ${t}`));
    await tick();
    expect(order).toEqual([]);
    expect(heldByOthers(['k', 'other'], b)).toEqual(['k']);
    expect(heldByOthers(['k'], a)).toEqual([]);
    releaseTurns(['k'], a);
    await second;
    expect(order).toEqual(['b waited']);
    expect(heldByOthers(['k'], b)).toEqual([]);
    releaseTurns(['k'], b);
    await third;
    expect(order).toEqual(['b waited', 'c waited']);
    releaseTurns(['k'], c);
  });

  it('a writer out of time holds nothing and leaves the queue', async () => {
    const [a, b, c] = [Symbol('a'), Symbol('b'), Symbol('c')];
    await takeTurns(['y'], a, Infinity);
    // b takes x, then waits for y in vain: it must give x back.
    expect(await takeTurns(['y', 'x'], b, 20)).toBe('timeout');
    expect(heldByOthers(['x'], c)).toEqual([]);
    expect(await takeTurns(['x'], c, 0)).toBe('free');
    releaseTurns(['x'], c);
    releaseTurns(['y'], a);
  });

  it('writers taking overlapping sets of items in any order never wait for each other in a circle', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.subarray(['a', 'b', 'c', 'd'], { minLength: 1 }), { minLength: 2, maxLength: 6 }),
        async (sets) => {
          const done: number[] = [];
          await Promise.all(
            sets.map(async (keys, i) => {
              const owner = Symbol(String(i));
              await takeTurns([...keys].reverse(), owner, Infinity);
              // While it holds its turns nobody else holds any of them.
              expect(heldByOthers(keys, owner)).toEqual([]);
              await tick();
              releaseTurns(keys, owner);
              done.push(i);
            }),
          );
          expect(done.sort()).toEqual(sets.map((_, i) => i));
        },
      ),
    );
  });

  it('a holder pausing between attempts is told when a writer starts waiting for its turn', async () => {
    const [a, b] = [Symbol('a'), Symbol('b')];
    await takeTurns(['p'], a, Infinity);
    const pause = untilWanted(a);
    let woken = false;
    void pause.wanted.then(() => (woken = true));
    await tick();
    expect(woken).toBe(false);
    const waiting = takeTurns(['p'], b, Infinity);
    await tick();
    expect(woken).toBe(true);
    pause.stop();
    releaseTurns(['p'], a);
    expect(await waiting).toBe('waited');
    releaseTurns(['p'], b);
  });
});
