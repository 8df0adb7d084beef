import type { RedisClient } from '../connection/connection';
import { entityIndexKey, listIndexKey, type RedisStoreKeyNames, typeIndexKey } from '../key-names';
import { pruneFilterIndexScript, repairFilterIndexScript } from './list-filter-lua';

/** Deliveries (or index members) one repair script call handles: short enough not to stall Redis. */
const REPAIR_CHUNK = 500;

/**
 * What a filtered list or count does when its script answers `repair` (the
 * agency's filter indexes are incomplete: deliveries written before they
 * existed, or by an older release during a rolling upgrade): brings the agency
 * up to date once, in chunks. Concurrent callers for one agency in this process
 * share one repair.
 */
export function createFilterRepair(
  client: RedisClient,
  keys: RedisStoreKeyNames,
): (agencyId: string) => Promise<void> {
  const repairs = new Map<string, Promise<void>>();
  return (agencyId) => {
    let running = repairs.get(agencyId);
    if (!running) {
      running = repairFilterIndexes(client, keys, agencyId).finally(() => repairs.delete(agencyId));
      repairs.set(agencyId, running);
    }
    return running;
  };
}

/**
 * Brings one agency's type and entity indexes and skew up to date: every delivery
 * in its list indexed and counted (then the skew is complete), and, when the type
 * index still holds more than the list, the entries of deliveries deleted
 * without them removed. Idempotent; safe next to inserts, updates and purges,
 * each chunk being one script.
 */
async function repairFilterIndexes(client: RedisClient, keys: RedisStoreKeyNames, agencyId: string) {
  const all = listIndexKey(keys.base, agencyId);
  let after: unknown = null;
  do {
    after = await repairFilterIndexScript.run(
      client,
      [all],
      [keys.base, agencyId, after === null ? '1' : '0', after === null ? '' : String(after), REPAIR_CHUNK],
    );
  } while (after !== null);
  const types = typeIndexKey(keys.base, agencyId);
  if ((await client.zcard(types)) <= (await client.zcard(all))) return;
  for (const index of [types, entityIndexKey(keys.base, agencyId)]) {
    let last: unknown = null;
    do {
      last = await pruneFilterIndexScript.run(
        client,
        [index, all],
        [last === null ? '1' : '0', last === null ? '' : String(last), REPAIR_CHUNK],
      );
    } while (last !== null);
  }
}
