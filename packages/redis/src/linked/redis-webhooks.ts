import { isCluster, quitClient, resolveConnection } from '../connection/connection';
import { buildQueueKeyNames, buildStoreKeyNames, DEFAULT_KEY_PREFIX } from '../key-names';
import { assertOneSlotForLinked } from '../prefix-slots';
import { createRedisQueueOn, type RedisDeliveryQueue, type RedisQueueOptions } from '../queue/redis-queue';
import { createRedisStoreOn, type RedisStoreOptions, type RedisWebhookStore } from '../store/redis-store';
import { createRedisLink, type RedisLink } from './redis-link';

/** Options of {@link createRedisWebhooks}: those of the store and the queue, over one connection and prefix. */
export type RedisWebhooksOptions = RedisStoreOptions & Omit<RedisQueueOptions, 'redis'>;

/** A linked Redis store and queue, ready for `createWebhookService`. */
export interface RedisWebhooks {
  /** The linked store: its insert also enqueues, its compare-and-set also moves the queue entry. */
  store: RedisWebhookStore;
  /** The linked queue: its claims also read the records and configurations for the store. */
  queue: RedisDeliveryQueue;
  /** Closes both (and the connection, when it was opened from a URL or options). Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates the Redis store and queue over one connection and prefix, linked: the
 * store's insert also enqueues the new delivery, and the compare-and-set that
 * records an attempt also reschedules or removes its queue entry, each in the
 * same Lua script; a claim also reads the claimed records and their agencies'
 * configurations. So `emit` is atomic on Redis (no crash can leave a delivery
 * without its queue entry), a recorded attempt and its queue entry never
 * disagree, and the worker's reads and the service's follow-up `enqueue`, `ack`
 * or `reschedule` are answered in process instead of by more round trips. The
 * usual way to run on Redis alone; use `createRedisStore` / `createRedisQueue`
 * to mix with another store or queue.
 *
 * On Redis Cluster the linked scripts touch store and queue keys together, so the
 * prefix must carry a hash tag (`{myapp}:`) that puts them in one slot.
 *
 * @example
 * ```ts
 * const redis = new Redis(process.env.REDIS_URL);
 * const { store, queue } = createRedisWebhooks({ redis });
 * const webhooks = createWebhookService({ store, queue });
 * ```
 */
export function createRedisWebhooks(options: RedisWebhooksOptions = {}): RedisWebhooks {
  const prefix = options.prefix ?? DEFAULT_KEY_PREFIX;
  const { client, owned } = resolveConnection(options.redis);
  const storeKeys = buildStoreKeyNames(prefix);
  const queueKeys = buildQueueKeyNames(prefix);
  let store: RedisWebhookStore;
  let queue: RedisDeliveryQueue;
  let link: RedisLink;
  try {
    if (isCluster(client)) assertOneSlotForLinked(prefix, storeKeys.base, queueKeys.base);
    link = createRedisLink(client, storeKeys, queueKeys);
    const shared = { client, owned: false };
    store = createRedisStoreOn(shared, { ...options, prefix }, link);
    queue = createRedisQueueOn(shared, { ...options, prefix }, link);
  } catch (error) {
    // Refused at construction: a connection opened for it must not keep the process alive.
    if (owned) client.disconnect();
    throw error;
  }
  let closed = false;
  return {
    store,
    queue,
    async close() {
      if (closed) return;
      closed = true;
      await queue.close();
      await store.close();
      await link.subscription.close();
      if (owned) await quitClient(client);
    },
  };
}
