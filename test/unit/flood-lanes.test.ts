import { FloodLanes } from '../../scripts/lib/flood-lanes';

type Answer = { status: number };
const refusedForMs = (ms: number) => (answer: Answer) => (answer.status === 429 ? ms : undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `n` requests of `key` sent at once, each answering `status` after `ms`: the most that ran at the same time. */
async function concurrency(lanes: FloodLanes, key: string, n: number, forMs = 60_000, ms = 5): Promise<number> {
  let running = 0;
  let most = 0;
  const serve = async (): Promise<Answer> => {
    most = Math.max(most, ++running);
    await sleep(ms);
    running -= 1;
    return { status: 200 };
  };
  await Promise.all(Array.from({ length: n }, () => lanes.run(key, serve, refusedForMs(forMs))));
  return most;
}

const refuse = (lanes: FloodLanes, key: string, forMs = 60_000) =>
  lanes.run(key, async () => ({ status: 429 }), refusedForMs(forMs));

describe('flood lanes of the local server', () => {
  it('run a token that was never refused all at once, however many requests it sends', async () => {
    const lanes = new FloodLanes();
    expect(await concurrency(lanes, 'Bearer calm', 8)).toBe(8);
  });

  it('serve a refused token one request at a time, in the order they came, while other tokens run at once', async () => {
    const lanes = new FloodLanes();
    await refuse(lanes, 'Bearer flood');
    const order: number[] = [];
    const served = Array.from({ length: 5 }, (_, i) =>
      lanes.run('Bearer flood', async () => (order.push(i), await sleep(2), { status: 200 }), refusedForMs(60_000)),
    );
    const [flood, calm] = await Promise.all([
      concurrency(lanes, 'Bearer flood', 4),
      concurrency(lanes, 'Bearer calm', 4),
    ]);
    await Promise.all(served);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(flood).toBe(1);
    expect(calm).toBe(4);
  });

  it('keep serving the lane after a request in it failed', async () => {
    const lanes = new FloodLanes();
    await refuse(lanes, 'Bearer flood');
    const failed = lanes.run('Bearer flood', () => Promise.reject(new Error('boom')), refusedForMs(60_000));
    await expect(failed).rejects.toThrow('boom');
    expect(await concurrency(lanes, 'Bearer flood', 3)).toBe(1);
  });

  it('end a lane once the refusals stop for as long as the last one asked', async () => {
    const lanes = new FloodLanes();
    await refuse(lanes, 'Bearer flood', 30);
    expect(await concurrency(lanes, 'Bearer flood', 3)).toBe(1);
    await sleep(40);
    expect(await concurrency(lanes, 'Bearer flood', 3)).toBe(3);
  });

  it('leave requests without a token alone', async () => {
    const lanes = new FloodLanes();
    await lanes.run(undefined, async () => ({ status: 429 }), refusedForMs(60_000));
    let running = 0;
    let most = 0;
    const serve = async (): Promise<Answer> => (
      (most = Math.max(most, ++running)),
      await sleep(5),
      running--,
      { status: 200 }
    );
    await Promise.all(Array.from({ length: 3 }, () => lanes.run(undefined, serve, refusedForMs(60_000))));
    expect(most).toBe(3);
  });
});
