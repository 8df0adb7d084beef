/**
 * Sets `key` as the newest entry of `map` and, past `capacity` entries, drops the
 * oldest one. The notes and caches a process keeps about Redis (hand-offs, claim
 * snapshots, configurations) use it so none of them can grow without bound.
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, capacity: number): void {
  // Deleting first moves a key that was already there to the newest end.
  map.delete(key);
  map.set(key, value);
  if (map.size > capacity) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}
