import { inTurns, turnTaker } from '../../src/services/import-turns';

/** The items of `source` in order, with 'other' where work queued elsewhere (an immediate) got its turn. */
async function order(take: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  async function* rows(): AsyncGenerator<string> {
    for (const row of ['a', 'b', 'c']) {
      // Other work of the process becomes ready while the run has its next piece at hand.
      if (row === 'a') setImmediate(() => seen.push('other'));
      yield row;
    }
  }
  for await (const row of inTurns(rows(), take)) seen.push(row);
  return seen;
}

describe('an import run takes turns with the rest of its process (issue 54 item 5)', () => {
  it('gives the event loop back once its slice is used up: waiting work runs between its pieces', async () => {
    expect(await order(turnTaker(1, 0))).toEqual(['other', 'a', 'b', 'c']);
  });

  it('within its slice it goes on without a turn', async () => {
    const seen = await order(turnTaker(1, 60_000));
    expect(seen.slice(0, 3)).toEqual(['a', 'b', 'c']);
  });

  it('with a share below 1 it rests as long as its slice took: a timer due within that runs before its next piece', async () => {
    const seen: string[] = [];
    const take = turnTaker(0.5, 0);
    async function* rows(): AsyncGenerator<string> {
      yield 'a';
      yield 'b';
    }
    for await (const row of inTurns(rows(), take)) {
      seen.push(row);
      if (row !== 'a') continue;
      // A slice of 20 ms of work; at half the process's time the run then rests 20 ms.
      for (const start = performance.now(); performance.now() - start < 20;);
      setTimeout(() => seen.push('timer'), 10);
    }
    expect(seen).toEqual(['a', 'timer', 'b']);
  });
});
