import type { CountDeliveriesFilter } from '@svc/webhooks-core';
import type { RedisClient } from '../connection/connection';
import { unexpectedReply } from '../errors';
import { listIndexKey, type RedisStoreKeyNames } from '../key-names';
import { countFilteredScript } from './count-filter-lua';
import { isFiltered } from './delivery-list';

/**
 * Index members one count script walks at most, each with a small HMGET: a
 * millisecond or two of Redis (as the repair's chunk), so a count of a huge
 * window runs as many short scripts and never holds Redis up for long.
 */
const COUNT_CHUNK = 500;

/**
 * The store's `countDeliveries`, answered inside Redis: nothing but numbers
 * comes back. Without a type, entity or time filter the agency's full or status
 * list is the answer (ZCARD), as it is the list's; with one, the count script
 * (see count-filter-lua.ts) runs in chunks. When its first chunk finds the
 * agency's filter indexes incomplete, the agency is repaired once (`repairOnce`,
 * shared with the list) and the count starts over without the check.
 */
export function createDeliveryCounter(
  client: RedisClient,
  keys: RedisStoreKeyNames,
  repairOnce: (agencyId: string) => Promise<void>,
): (agencyId: string, filter: CountDeliveriesFilter) => Promise<number> {
  return async (agencyId, filter) => {
    if (!isFiltered(filter)) return client.zcard(listIndexKey(keys.base, agencyId, filter.status));
    const counted = await countFiltered(client, keys, agencyId, filter, true);
    if (counted !== 'repair') return counted;
    await repairOnce(agencyId);
    return (await countFiltered(client, keys, agencyId, filter, false)) as number;
  };
}

/** Runs the count script chunk after chunk; `repair` only ever from the first (the checked) one. */
async function countFiltered(
  client: RedisClient,
  keys: RedisStoreKeyNames,
  agencyId: string,
  filter: CountDeliveriesFilter,
  check: boolean,
): Promise<number | 'repair'> {
  const flag = (value: unknown) => (value === undefined ? '0' : '1');
  const fixed = [
    keys.base,
    agencyId,
    filter.status ?? '',
    flag(filter.eventType),
    filter.eventType ?? '',
    flag(filter.entityId),
    filter.entityId ?? '',
    filter.createdSince ?? '',
    filter.createdBefore ?? '',
  ];
  let counted = 0;
  let skew = '';
  let below = '';
  for (;;) {
    const first = below === '';
    const reply = await countFilteredScript.run(
      client,
      [listIndexKey(keys.base, agencyId)],
      [...fixed, check && first ? '1' : '0', skew, below, COUNT_CHUNK],
    );
    if (reply === 'repair' && first) return 'repair';
    if (!Array.isArray(reply) || reply.length !== 3) throw unexpectedReply('countDeliveries', reply);
    const [chunk, next, usedSkew] = reply as [number, string | null, string];
    counted += Number(chunk);
    if (next === null) return counted;
    below = String(next);
    skew = String(usedSkew);
  }
}
