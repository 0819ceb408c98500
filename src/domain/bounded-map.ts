/**
 * What a warm instance keeps in memory (token lookups, rate counts, page hints, opened webhook secrets) is bounded:
 * an instance serving many integrations for hours must not grow with them. A Map iterates in insertion order, so
 * its first key is the least recently kept one, and that is the one forgotten.
 */
export function keepAtMost<K, V>(map: Map<K, V>, max: number, key: K, value: V): V {
  map.delete(key);
  while (map.size >= max) map.delete(map.keys().next().value as K);
  map.set(key, value);
  return value;
}
