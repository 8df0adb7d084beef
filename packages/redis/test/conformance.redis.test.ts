import { describeQueueConformance, describeStoreConformance } from '@svc/webhooks-core/testing';
import { afterAll } from 'vitest';
import { createRedisQueue, createRedisStore, createRedisWebhooks } from '../src/index';
import { connectTestRedis, redisReachable, removeKeys, uniquePrefix } from './redis-test-env';

// One connection for the whole file; each test gets its own key prefix, removed after it.
const redis = redisReachable ? connectTestRedis() : null;
afterAll(async () => {
  await redis?.quit();
});

if (redis) {
  describeStoreConformance('Redis', () => {
    const prefix = uniquePrefix('conformance-store');
    return { store: createRedisStore({ redis, prefix }), teardown: () => removeKeys(redis, prefix) };
  });

  describeQueueConformance('Redis', () => {
    const prefix = uniquePrefix('conformance-queue');
    const queue = createRedisQueue({ redis, prefix });
    return {
      queue,
      teardown: async () => {
        await queue.close();
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
    return {
      queue: linked.queue,
      store: linked.store,
      teardown: async () => {
        await linked.close();
        await removeKeys(redis, prefix);
      },
    };
  });
}
