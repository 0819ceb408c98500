/**
 * A Map that lives as long as the jest worker (test/support/worker-environment.cjs), by name: what earlier files of
 * this worker built and this file would build again the same way. Outside the integration environment (unit files),
 * a Map of this file alone.
 */
export function workerMap<K, V>(name: string): Map<K, V> {
  const cache = ((globalThis as { __workerCache?: Record<string, unknown> }).__workerCache ??= {});
  return (cache[name] ??= new Map<K, V>()) as Map<K, V>;
}
