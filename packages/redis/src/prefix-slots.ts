import { hashTag } from './connection/key-slot';
import { invalidOption } from './errors';

/**
 * Refuses a prefix under which the keys of one adapter would not share a slot.
 * Redis Cluster hashes a key's first `{…}` when it is not empty, and the whole
 * name otherwise, so a prefix whose first pair is empty (`'{}:'`, `'{}{app}:'`)
 * spreads every script's keys over many slots, and each call would fail with
 * CROSSSLOT. Refused on every client, so the mistake shows before a cluster.
 *
 * @param base a key base of the adapter (`${prefix}{store}:` or `${prefix}{queue}:`)
 */
export function assertOneSlotPerAdapter(prefix: string, base: string): void {
  if (hashTag(`${base}x`) !== null) return;
  throw invalidOption(
    'prefix',
    `The prefix '${prefix}' has an empty first {…}, so Redis Cluster hashes each whole key name and ` +
      "the adapter's keys fall in different slots (every script would fail with CROSSSLOT). " +
      "Use a prefix without braces ('whk:') or one whose first {…} holds a name ('{whk}:').",
  );
}

/**
 * On a cluster, the linked store and queue's scripts touch the keys of both, so
 * the two must hash to one slot: the prefix must carry the tag (`'{whk}:'`).
 */
export function assertOneSlotForLinked(prefix: string, storeBase: string, queueBase: string): void {
  if (hashTag(`${storeBase}x`) === hashTag(`${queueBase}x`)) return;
  throw invalidOption(
    'prefix',
    `On Redis Cluster, createRedisWebhooks needs a prefix with a hash tag (got '${prefix}'), ` +
      "so that the linked store and queue keys share one slot. Pass one such as prefix: '{whk}:'.",
  );
}
