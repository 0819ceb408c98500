/**
 * A V8 CPU profile (node --cpu-prof, or the inspector's Profiler.stop)
 * summarized: self time by where the code lives (a package, a source file of
 * this repository, node's own modules, the garbage collector, idle) and by
 * function, largest first. Sample times, not guesses: what a profile shows.
 */
import { relative } from 'node:path';

export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  /** Sampled ms, idle excluded. */
  readonly busyMs: number;
  /** [place, ms] largest first. */
  readonly byPlace: [string, number][];
  readonly byFunction: [string, number][];
}

const ROOT = relative('/', `${__dirname}/../..`);

/** Where a function lives: its package, its file in this repository, node's internals, or V8's own entries. */
export function placeOf(url: string, functionName: string): string {
  if (!url) return `(${functionName.replace(/[()]/g, '') || 'anonymous'})`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (pkg) return pkg;
  const inRepo = path.indexOf(`${ROOT}/`);
  return inRepo >= 0 ? path.slice(inRepo + ROOT.length + 1) : path;
}

const top = (m: Map<string, number>, n: number): [string, number][] => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);

export function summarizeProfile(profile: CpuProfile, n = 12): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    // The first sample's delta is the time from the profiler's start to it: the profiler's own.
    if (i === 0) return;
    const frame = byId.get(id)!;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const place = placeOf(frame.url, frame.functionName);
    if (place === '(idle)') return;
    busy += ms;
    places.set(place, (places.get(place) ?? 0) + ms);
    const fn = `${frame.functionName || '(anonymous)'} ${place}:${frame.lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
  });
  return { busyMs: busy, byPlace: top(places, n), byFunction: top(functions, n) };
}
