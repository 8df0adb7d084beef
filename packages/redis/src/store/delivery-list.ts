import type { DeliveryRecord, ListDeliveriesOptions } from '@svc/webhooks-core';
import type { RedisClient } from '../connection/connection';
import { entityIndexKey, listIndexKey, type RedisStoreKeyNames, typeIndexKey } from '../key-names';
import { listFilteredScript, pruneFilterIndexScript, repairFilterIndexScript } from './list-filter-lua';
import { decodeDeliveryPairs } from './store-codec';
import { listDeliveriesScript } from './store-scripts';

/** Deliveries (or index members) one repair script call handles: short enough not to stall Redis. */
const REPAIR_CHUNK = 500;

/**
 * The store's `listDeliveries`. Without a type, entity or time filter it reads
 * the agency's full or status list as it always has; with one, the filtered
 * script (see list-filter-lua.ts for the layout and its reasoning). When that
 * script finds the agency's filter indexes incomplete (deliveries written before
 * they existed, or by an older release during a rolling upgrade), the agency is
 * repaired once, in chunks, and the list runs again without the check, so a
 * release that keeps writing without indexing cannot make it loop.
 */
export function createDeliveryLister(
  client: RedisClient,
  keys: RedisStoreKeyNames,
): (agencyId: string, options: ListDeliveriesOptions) => Promise<DeliveryRecord[]> {
  const repairs = new Map<string, Promise<void>>();
  // Concurrent lists of one agency in this process share one repair.
  const repairOnce = (agencyId: string): Promise<void> => {
    let running = repairs.get(agencyId);
    if (!running) {
      running = repairFilterIndexes(client, keys, agencyId).finally(() => repairs.delete(agencyId));
      repairs.set(agencyId, running);
    }
    return running;
  };

  return async (agencyId, options) => {
    if (!isFiltered(options)) {
      const index = listIndexKey(keys.base, agencyId, options.status);
      const max = options.beforeId === undefined ? '+' : `(${options.beforeId}`;
      const reply = await listDeliveriesScript.run(client, [index], [keys.base, max, options.limit]);
      return decodeDeliveryPairs(reply, 'listDeliveries');
    }
    let reply = await runFiltered(client, keys, agencyId, options, true);
    if (reply === 'repair') {
      await repairOnce(agencyId);
      reply = await runFiltered(client, keys, agencyId, options, false);
    }
    return decodeDeliveryPairs(reply, 'listDeliveries');
  };
}

function isFiltered(options: ListDeliveriesOptions): boolean {
  return (
    options.eventType !== undefined ||
    options.entityId !== undefined ||
    options.createdSince !== undefined ||
    options.createdBefore !== undefined
  );
}

function runFiltered(
  client: RedisClient,
  keys: RedisStoreKeyNames,
  agencyId: string,
  options: ListDeliveriesOptions,
  check: boolean,
): Promise<unknown> {
  const flag = (value: unknown) => (value === undefined ? '0' : '1');
  return listFilteredScript.run(
    client,
    [listIndexKey(keys.base, agencyId)],
    [
      keys.base,
      agencyId,
      options.limit,
      options.beforeId ?? '',
      options.status ?? '',
      flag(options.eventType),
      options.eventType ?? '',
      flag(options.entityId),
      options.entityId ?? '',
      options.createdSince ?? '',
      options.createdBefore ?? '',
      check ? '1' : '0',
    ],
  );
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
