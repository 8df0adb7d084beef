/**
 * Sets `key` as the newest entry of `map` and, past `capacity` entries, drops
 * the oldest one, so a note or cache a process keeps per delivery or per agency
 * can never grow without bound.
 *
 * @example
 * ```ts
 * const recent = new Map<string, number>();
 * setNewest(recent, deliveryId, Date.now(), 10_000);
 * ```
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
