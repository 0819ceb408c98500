import {
  Counts,
  sliceMsOf,
  sliceStartOf,
  SYNC_INTERVAL_MS,
  type RatePolicy,
  type Sync,
} from '../../src/domain/rate-window';
import { seededRandom } from './dynamo-proxy';
import { applies, mostInAnyWindow } from './rate-windows';

interface Instance {
  readonly counts: Counts;
  syncing: boolean;
  timerAt: number | undefined;
  /** Its last sync tag. */
  seq: number;
}

interface InFlight {
  at: number;
  kind: 'apply' | 'answer';
  instance: Instance;
  sync: Sync;
}

/**
 * k instances counting one token as src/data/rate-counts.ts does, with the
 * same Counts: each decides on its own view, syncs at most once a second
 * (beside an admitted request, or on a timer a second after its last sync
 * while it has unsent counts; a refusal never syncs), and each sync takes
 * 0–`maxRoundTripMs` ms, reaching the store (one item, updated atomically) at a
 * random point of its round trip and answering with the whole item (applied
 * or refused on the instance's mark, as DynamoDB evaluates the condition).
 */
export function simulate(
  policy: RatePolicy,
  k: number,
  times: readonly number[],
  random: () => number,
  pick: (n: number) => number,
  maxRoundTripMs = 200,
): number[] {
  const store = new Map<number, number>();
  const marks = new Map<Instance, number>();
  const snapshots = new Map<Instance, { slices: Map<number, number>; landed: number }>();
  const instances: Instance[] = Array.from({ length: k }, () => ({
    counts: new Counts(),
    syncing: false,
    timerAt: undefined,
    seq: 0,
  }));
  const flights: InFlight[] = [];
  const admitted: number[] = [];

  const due = (instance: Instance, now: number): void => {
    if (instance.syncing || !instance.counts.unsent) return;
    if (!instance.counts.due(now)) {
      instance.timerAt ??= instance.counts.lastSyncAt + SYNC_INTERVAL_MS;
      return;
    }
    instance.syncing = true;
    const sync = instance.counts.beginSync(now, ++instance.seq);
    const latency = random() * maxRoundTripMs;
    flights.push({ at: now + latency * random(), kind: 'apply', instance, sync });
    flights.push({ at: now + latency, kind: 'answer', instance, sync });
  };
  const advance = (to: number): void => {
    for (;;) {
      let next: InFlight | Instance | undefined;
      let at = Infinity;
      for (const f of flights) if (f.at < at) [next, at] = [f, f.at];
      for (const i of instances) if (i.timerAt !== undefined && i.timerAt < at) [next, at] = [i, i.timerAt];
      if (!next || at > to) return;
      if (!('kind' in next)) {
        next.timerAt = undefined;
        due(next, at);
        continue;
      }
      flights.splice(flights.indexOf(next), 1);
      const { instance, sync } = next;
      if (next.kind === 'apply') {
        if (applies(marks.get(instance), sync)) {
          for (const [start, n] of sync.slices) store.set(start, (store.get(start) ?? 0) + n);
          marks.set(instance, sync.seq);
        }
        for (const [start] of store)
          if (start + sliceMsOf(policy) <= at - policy.windowSeconds * 1000) store.delete(start);
        snapshots.set(instance, { slices: new Map(store), landed: marks.get(instance)! });
      } else {
        const { slices, landed } = snapshots.get(instance)!;
        instance.counts.syncAnswered(sync, slices, landed);
        instance.syncing = false;
        due(instance, at);
      }
    }
  };
  const sliceMs = sliceMsOf(policy);
  times.forEach((t, n) => {
    advance(t);
    const instance = instances[pick(n) % k]!;
    if (instance.counts.state(policy, t).remaining === 0) return;
    instance.counts.count(sliceStartOf(sliceMs, t));
    admitted.push(t);
    due(instance, t);
  });
  return admitted;
}

export interface Outcome {
  /** The most admitted in any W seconds. */
  readonly most: number;
  /** Admitted per W over the first three windows. */
  readonly perWindow: number;
  readonly refused: number;
}

/**
 * A token sending `demand` times its limit at a steady rate for `windows` windows (four by default), spread over k
 * instances in turn (as `INSTANCES=N npm start` hands out connections) or at random (as Lambda may).
 */
export function run(
  policy: RatePolicy,
  k: number,
  demand: number,
  seed: number,
  spread: 'random' | 'in turn',
  windows = 4,
): Outcome {
  const random = seededRandom(seed);
  const rate = (demand * policy.requests) / policy.windowSeconds;
  const offset = random() * 1000;
  const w = policy.windowSeconds * 1000;
  const times = Array.from({ length: Math.floor((rate * windows * w) / 1000) }, (_, i) => offset + (i * 1000) / rate);
  const first = Math.floor(random() * k);
  const admitted = simulate(
    policy,
    k,
    times,
    random,
    spread === 'random' ? () => Math.floor(random() * k) : (n) => n + first,
  );
  return {
    most: mostInAnyWindow(admitted, w),
    perWindow: admitted.filter((t) => t < offset + Math.min(3, windows) * w).length / Math.min(3, windows),
    refused: times.length - admitted.length,
  };
}
