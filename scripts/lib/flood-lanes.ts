/**
 * The local server serves every business from one process and one DynamoDB Local, which runs a table's writes one
 * at a time. A token its rate limit refuses (contract §18: a flood) is served one request at a time for as long as
 * it keeps being refused: the bursts its sliding window admits (up to N requests at once when the window's oldest
 * leave it) wait in the token's own lane instead of queueing ahead of other businesses' requests in the process and
 * in DynamoDB Local. A token that is not refused, however many requests it sends at once, runs them all at once.
 * Deployed, each request has a Lambda instance of its own and DynamoDB serves each business's items apart: no lane.
 *
 * Nothing is stored: a lane is a promise chain in this process's memory, kept while the refusals go on (at most
 * MAX_LANES of them, the least recently refused forgotten first).
 */
import { keepAtMost } from '../../src/domain/bounded-map';

const MAX_LANES = 10_000;

interface Lane {
  /** Until when (epoch ms) the token's requests run one at a time: its last refusal's Retry-After, from then on. */
  until: number;
  /** The end of the last request queued in the lane. */
  tail: Promise<unknown>;
}

export class FloodLanes {
  private readonly lanes = new Map<string, Lane>();

  /**
   * Runs `serve` for the token `key` (a request's Authorization header): in its lane if it was refused within its
   * last Retry-After, else at once. `refusedForMs` tells of an answer whether it refused the token, and for how long.
   */
  run<T>(
    key: string | undefined,
    serve: () => Promise<T>,
    refusedForMs: (answer: T) => number | undefined,
  ): Promise<T> {
    if (key === undefined) return serve();
    const lane = this.lanes.get(key);
    if (lane && lane.until <= Date.now()) this.lanes.delete(key);
    const inLane = lane && lane.until > Date.now();
    const served = inLane ? lane.tail.then(serve, serve) : serve();
    if (inLane) lane.tail = served.catch(() => undefined);
    return served.then((answer) => {
      const ms = refusedForMs(answer);
      if (ms !== undefined) this.refused(key, Date.now() + ms);
      return answer;
    });
  }

  /** The token's lane, opened or kept open until `until`; every request from now on queues at its end. */
  private refused(key: string, until: number): void {
    const lane = this.lanes.get(key) ?? { until, tail: Promise.resolve() };
    lane.until = Math.max(lane.until, until);
    keepAtMost(this.lanes, MAX_LANES, key, lane);
  }
}
