/**
 * An import's run shares its process with whatever else it serves (the local
 * server: every business's requests, the local S3 server; issue 54 item 5).
 * Reading and applying rows has always more work ready, and a chain of
 * awaits that finds its next piece already there runs on without giving the
 * event loop back: other requests' answers from DynamoDB would wait behind
 * it. The run takes turns instead: after IMPORT_SLICE_MS, the I/O that is
 * waiting goes first (setImmediate: after the poll phase). With a `share`
 * below 1, the run also rests after each slice, so that it holds the loop
 * for at most that share of the time and requests that arrive find it free
 * (the local server; a Lambda that runs the import alone takes no rests).
 */
const IMPORT_SLICE_MS = 2;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const rest = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A turn taker: each call gives the event loop back once `sliceMs` passed since the last time it did, for
 * a turn, or (share < 1) for long enough that the run's slices are at most `share` of the time.
 */
export function turnTaker(share = 1, sliceMs = IMPORT_SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    const slice = performance.now() - since;
    if (slice < sliceMs) return;
    await (share < 1 ? rest((slice * (1 - share)) / share) : nextTurn());
    since = performance.now();
  };
}

/** `source`'s items, each passed on after `take` (the work on one item starts in a turn of its own if due). */
export async function* inTurns<T>(source: AsyncIterable<T>, take: () => Promise<void>): AsyncGenerator<T> {
  for await (const item of source) {
    await take();
    yield item;
  }
}
