import { describeSecretsAtRest, type SecretsAtRestFixture } from '@svc/test-support/secrets-at-rest';
import type { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { createRedisStore, createRedisWebhooks, type RedisWebhookStore } from '../src/index';
import { connectTestRedis, keysUnder, redisReachable, removeKeys, uniquePrefix } from './redis-test-env';

const redis = redisReachable ? connectTestRedis() : null;
afterAll(async () => {
  await redis?.quit();
});

/** Every key under the prefix with every value it holds, whatever its type. */
async function dumpKeys(client: Redis, prefix: string): Promise<string> {
  const dumped: string[] = [];
  for (const key of await keysUnder(client, prefix)) {
    const type = await client.type(key);
    const values: Record<string, () => Promise<unknown>> = {
      string: () => client.get(key),
      hash: () => client.hgetall(key),
      zset: () => client.zrange(key, 0, -1, 'WITHSCORES'),
      list: () => client.lrange(key, 0, -1),
      set: () => client.smembers(key),
      stream: () => client.xrange(key, '-', '+'),
    };
    const read = values[type];
    if (!read) throw new Error(`Key ${key} has type ${type}, which the dump cannot read.`);
    dumped.push(`${key} (${type}) ${JSON.stringify(await read())}`);
  }
  return dumped.join('\n');
}

function fixtureOn(client: Redis, prefix: string, store: RedisWebhookStore, close: () => Promise<void>) {
  return {
    store,
    dump: () => dumpKeys(client, prefix),
    // A key of the wrong type where the configuration hash belongs: every write to it fails in Redis.
    async breakConfigWrites(agencyId: string) {
      const key = `${store.keys.base}cfg:${agencyId}`;
      await client.del(key);
      await client.set(key, 'not a hash');
    },
    async teardown() {
      await close();
      await removeKeys(client, prefix);
    },
  } satisfies SecretsAtRestFixture;
}

if (redis) {
  describeSecretsAtRest('Redis, linked store and queue', async () => {
    const prefix = uniquePrefix('secrets-linked');
    const linked = createRedisWebhooks({ redis, prefix });
    return { ...fixtureOn(redis, prefix, linked.store, () => linked.close()), queue: linked.queue };
  });

  describeSecretsAtRest('Redis store', async () => {
    const prefix = uniquePrefix('secrets-store');
    const store = createRedisStore({ redis, prefix });
    return fixtureOn(redis, prefix, store, () => store.close());
  });
}
