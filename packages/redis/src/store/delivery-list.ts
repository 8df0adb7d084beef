import type { CountDeliveriesFilter, DeliveryRecord, ListDeliveriesOptions } from '@svc/webhooks-core';
import type { RedisClient } from '../connection/connection';
import { listIndexKey, type RedisStoreKeyNames } from '../key-names';
import { listFilteredScript } from './list-filter-lua';
import { decodeDeliveryPairs } from './store-codec';
import { listDeliveriesScript } from './store-scripts';

/**
 * The store's `listDeliveries`. Without a type, entity or time filter it reads
 * the agency's full or status list as it always has; with one, the filtered
 * script (see list-filter-lua.ts for the layout and its reasoning). When that
 * script finds the agency's filter indexes incomplete (deliveries written before
 * they existed, or by an older release during a rolling upgrade), the agency is
 * repaired once (`repairOnce`, shared with the count), and the list runs again
 * without the check, so a release that keeps writing without indexing cannot
 * make it loop.
 */
export function createDeliveryLister(
  client: RedisClient,
  keys: RedisStoreKeyNames,
  repairOnce: (agencyId: string) => Promise<void>,
): (agencyId: string, options: ListDeliveriesOptions) => Promise<DeliveryRecord[]> {
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

/** Whether a filter needs the filter indexes: without one, the full or status list answers alone. */
export function isFiltered(filter: CountDeliveriesFilter): boolean {
  return (
    filter.eventType !== undefined ||
    filter.entityId !== undefined ||
    filter.createdSince !== undefined ||
    filter.createdBefore !== undefined
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
