import { describeQueueConformance, describeStoreConformance } from '@svc/webhooks-core/testing';
import { afterAll } from 'vitest';
import {
  createRedisQueue,
  createRedisStore,
  createRedisWebhooks,
  type RedisDeliveryQueue,
} from '../src/index';
import { connectTestRedis, REDIS_URL, redisReachable, removeKeys, uniquePrefix } from './redis-test-env';

// One connection for the whole file; each test gets its own key prefix, removed after it.
const redis = redisReachable ? connectTestRedis() : null;
afterAll(async () => {
  await redis?.quit();
});

/**
 * Queues on `prefix` over their own connections, as a second worker process would
 * open them; `close` closes them (and their connections).
 */
function siblingsOn(prefix: string): { open: () => RedisDeliveryQueue; close: () => Promise<void> } {
  const opened: RedisDeliveryQueue[] = [];
  return {
    open: () => {
      const sibling = createRedisQueue({ redis: REDIS_URL, prefix });
      opened.push(sibling);
      return sibling;
    },
    close: async () => {
      await Promise.all(opened.map((sibling) => sibling.close()));
    },
  };
}

if (redis) {
  describeStoreConformance('Redis', () => {
    const prefix = uniquePrefix('conformance-store');
    return { store: createRedisStore({ redis, prefix }), teardown: () => removeKeys(redis, prefix) };
  });

  describeQueueConformance('Redis', () => {
    const prefix = uniquePrefix('conformance-queue');
    const queue = createRedisQueue({ redis, prefix });
    const siblings = siblingsOn(prefix);
    return {
      queue,
      sibling: siblings.open,
      teardown: async () => {
        await queue.close();
        await siblings.close();
        await removeKeys(redis, prefix);
      },
    };
  });

  // The linked pair (createRedisWebhooks): the store's scripts also move queue entries.
  describeStoreConformance('Redis, linked store and queue', () => {
    const prefix = uniquePrefix('conformance-linked-store');
    const linked = createRedisWebhooks({ redis, prefix });
    return {
      store: linked.store,
      teardown: async () => {
        await linked.close();
        await removeKeys(redis, prefix);
      },
    };
  });

  describeQueueConformance('Redis, linked store and queue', () => {
    const prefix = uniquePrefix('conformance-linked-queue');
    const linked = createRedisWebhooks({ redis, prefix });
    const siblings = siblingsOn(prefix);
    return {
      queue: linked.queue,
      store: linked.store,
      sibling: siblings.open,
      teardown: async () => {
        await linked.close();
        await siblings.close();
        await removeKeys(redis, prefix);
      },
    };
  });
}
