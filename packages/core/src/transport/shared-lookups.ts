/*
 * Lookups in flight, shared by name and limited per agency.
 *
 * Concurrent checks of one hostname share one lookup: a burst of a thousand
 * deliveries to a cold name makes one query per record type, not a thousand.
 * Only the check that starts a lookup counts it against its agency; joining
 * one costs nothing, so an agency's own deliveries never compete with each
 * other for its limit. The limit bounds what one agency can start at once
 * (say, by saving URL after URL under a slow DNS zone of its own): past it a
 * check fails at once rather than waiting, so the attempt is not spent on a
 * queue behind that agency's own slow lookups.
 */

/** Lookups in flight, keyed by name; see the block comment of this file. */
export interface SharedLookups<T> {
  /**
   * The lookup in flight for `key`, joined; or a new one made by `start` and
   * counted against `agency` (not counted when `agency` is undefined).
   * Undefined when a new lookup is needed and `agency` already has
   * `maxPerAgency` in flight: nothing is started then.
   */
  join(key: string, agency: string | undefined, start: () => Promise<T>): Promise<T> | undefined;
  /** Lookups in flight (distinct keys). */
  readonly size: number;
  /** Lookups in flight started for `agency`. */
  inFlightOf(agency: string): number;
}

/** Creates the registry of shared lookups, allowing `maxPerAgency` in flight per agency. */
export function createSharedLookups<T>(maxPerAgency: number): SharedLookups<T> {
  const running = new Map<string, Promise<T>>();
  const perAgency = new Map<string, number>();
  const release = (agency: string | undefined): void => {
    if (agency === undefined) return;
    const left = (perAgency.get(agency) ?? 1) - 1;
    if (left === 0) perAgency.delete(agency);
    else perAgency.set(agency, left);
  };
  return {
    join(key, agency, start) {
      const current = running.get(key);
      if (current) return current;
      if (agency !== undefined) {
        const count = perAgency.get(agency) ?? 0;
        if (count >= maxPerAgency) return undefined;
        perAgency.set(agency, count + 1);
      }
      let lookup: Promise<T>;
      try {
        lookup = start();
      } catch (error) {
        lookup = Promise.reject(error);
      }
      const shared = lookup.finally(() => {
        running.delete(key);
        release(agency);
      });
      running.set(key, shared);
      return shared;
    },
    get size() {
      return running.size;
    },
    inFlightOf(agency) {
      return perAgency.get(agency) ?? 0;
    },
  };
}
