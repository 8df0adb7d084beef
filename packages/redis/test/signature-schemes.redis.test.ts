import { everythingIn, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { runStandardWebhooksScenario } from '@svc/test-support/standard-webhooks-scenario';
import type { SigningKeyRecord, UpsertConfigInput } from '@svc/webhooks-core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createRedisStore, createRedisWebhooks, type RedisWebhooks } from '../src/index';
import {
  commandCounter,
  connectTestRedis,
  describeRedis,
  listenOn,
  REDIS_URL,
  removeKeys,
  uniquePrefix,
} from './redis-test-env';

const T0 = 1_700_000_000_000;

const CONFIG: UpsertConfigInput = {
  agencyId: 'agency-a',
  webhookUrl: 'https://hooks.example.com/a',
  enabled: true,
  subscribedEventTypes: ['job_cancelled'],
  now: T0,
  newId: 'cfg-a',
  newSigningSecret: 'a'.repeat(64),
};

function signingKey(n: number): SigningKeyRecord {
  return {
    kid: `whkey_${n}`,
    privateKey: `whsk_${n}`,
    publicKey: `whpk_${n}`,
    createdAt: T0 + n,
    expiresAt: null,
  };
}

describeRedis('signature schemes on Redis', () => {
  let redis: Redis;
  let prefix = '';
  let harness: ServiceHarness | undefined;
  let linked: RedisWebhooks | undefined;
  beforeAll(() => {
    redis = connectTestRedis();
  });
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    await linked?.close();
    linked = undefined;
    await removeKeys(redis, prefix);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("a hash written before the fields existed reads as 'service' without keys, and an update leaves them out", async () => {
    prefix = uniquePrefix('schemes-old');
    const store = createRedisStore({ redis, prefix });
    const key = `${store.keys.base}cfg:agency-a`;
    await redis.hset(key, {
      id: 'cfg-a',
      agencyId: 'agency-a',
      webhookUrl: 'https://hooks.example.com/a',
      enabled: '1',
      subscribedEventTypes: '[]',
      signingSecret: 'a'.repeat(64),
      createdAt: String(T0),
      updatedAt: String(T0),
    });
    expect(await store.getConfig('agency-a')).toMatchObject({ signatureScheme: 'service', signingKeys: [] });
    await store.upsertConfig({ ...CONFIG, now: T0 + 1 });
    expect(await redis.hmget(key, 'signatureScheme', 'signingKeys'), 'nothing written').toEqual([null, null]);
    expect(await store.getConfig('agency-a')).toMatchObject({ signatureScheme: 'service', signingKeys: [] });
  });

  it('a create writes both fields; setSigningKeys writes signingKeys and updatedAt only, and announces it', async () => {
    prefix = uniquePrefix('schemes-fields');
    const store = createRedisStore({ redis, prefix });
    const key = `${store.keys.base}cfg:agency-a`;
    await store.upsertConfig(CONFIG);
    expect(await redis.hmget(key, 'signatureScheme', 'signingKeys')).toEqual(['service', '[]']);

    const messages = await listenOn(redis, store.keys.configChannel);
    try {
      const before = await redis.hgetall(key);
      const extra = { ...signingKey(1), note: 'not a key field' };
      await store.setSigningKeys('agency-a', [extra], T0 + 5);
      const after = await redis.hgetall(key);
      expect(after).toEqual({
        ...before,
        signingKeys: JSON.stringify([signingKey(1)]),
        updatedAt: String(T0 + 5),
      });
      expect(await store.setSigningKeys('agency-b', [signingKey(2)], T0 + 6)).toBeNull();
      expect(await redis.exists(`${store.keys.base}cfg:agency-b`), 'no hash made for an unknown agency').toBe(
        0,
      );
      await expect.poll(() => messages.received).toEqual(['agency-a']);
    } finally {
      messages.close();
    }
  });

  it('a key write Redis refuses throws without the private keys it carried', async () => {
    prefix = uniquePrefix('schemes-errors');
    const store = createRedisStore({ redis, prefix });
    // A key of the wrong type where the configuration hash belongs: it exists, and every HSET to it fails.
    await redis.set(`${store.keys.base}cfg:agency-a`, 'not a hash');
    const privateKey = `whsk_${'Zm9vYmFy'.repeat(5)}private`;
    const key = { ...signingKey(1), privateKey };
    const failures = [
      await store.setSigningKeys('agency-a', [key], T0 + 1).catch((error: unknown) => error),
      await store.upsertConfig({ ...CONFIG, signingKeys: [key] }).catch((error: unknown) => error),
    ];
    for (const failure of failures) {
      expect((failure as Error).message).toMatch(/WRONGTYPE/);
      expect(everythingIn(failure)).not.toContain(privateKey);
    }
  });

  it('a linked store sees keys another process writes, and hands out copies of its cached keys', async () => {
    prefix = uniquePrefix('schemes-linked');
    linked = createRedisWebhooks({ redis, prefix });
    const store = linked.store;
    await store.upsertConfig({ ...CONFIG, signatureScheme: 'both', signingKeys: [signingKey(1)] });
    // Cached once the subscription is live: the second read sends nothing.
    await expect
      .poll(async () => {
        await store.getConfig('agency-a');
        const counter = commandCounter(redis);
        await store.getConfig('agency-a');
        counter.stop();
        return counter.count();
      })
      .toBe(0);
    const read = await store.getConfig('agency-a');
    read?.signingKeys.push(signingKey(9));
    if (read?.signingKeys[0]) read.signingKeys[0].expiresAt = 1;
    expect((await store.getConfig('agency-a'))?.signingKeys, 'the cache kept its own copy').toEqual([
      signingKey(1),
    ]);

    const elsewhere = createRedisStore({ redis, prefix });
    await elsewhere.setSigningKeys('agency-a', [signingKey(2), signingKey(1)], T0 + 1);
    await expect
      .poll(async () => (await store.getConfig('agency-a'))?.signingKeys)
      .toEqual([signingKey(2), signingKey(1)]);
    expect(await store.getConfig('agency-a')).toMatchObject({ signatureScheme: 'both', updatedAt: T0 + 1 });
  });

  it("'standard' and 'both' (with v1a) deliveries verify with the unmodified standardwebhooks package and node:crypto", async () => {
    prefix = uniquePrefix('schemes-e2e');
    const pair = createRedisWebhooks({ redis: REDIS_URL, prefix });
    linked = pair;
    const started = await startServiceHarness({ store: () => pair.store, queue: () => pair.queue });
    harness = started;
    await runStandardWebhooksScenario(started, pair.store);
  });
});
