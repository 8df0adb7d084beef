import { FAST_RETRY, jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createRedisStore, createRedisWebhooks, type RedisWebhooks } from '../src/index';
import { connectTestRedis, describeRedis, REDIS_URL, removeKeys, uniquePrefix } from './redis-test-env';

const T0 = 1_700_000_000_000;

describeRedis('endpoint health on Redis', () => {
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

  it('hashes written before endpoint health read as no run and not disabled; an upsert removes the disable fields', async () => {
    prefix = uniquePrefix('health');
    const store = createRedisStore({ redis, prefix });
    await redis.hset(`${store.keys.base}cb:agency-a`, {
      version: '3',
      status: 'closed',
      consecutiveFailures: '0',
      failingSince: '',
      lastFailureAt: String(T0),
      lastSuccessAt: '',
      openedAt: '',
      openUntil: '',
      openings: '0',
    });
    expect(await store.getCircuit('agency-a')).toMatchObject({
      version: 3,
      lastFailureAt: T0,
      unsuccessfulAttempts: 0,
      unsuccessfulSince: null,
    });
    await redis.hset(`${store.keys.base}cfg:agency-a`, {
      id: 'cfg-a',
      agencyId: 'agency-a',
      webhookUrl: 'https://hooks.example.com/a',
      enabled: '1',
      subscribedEventTypes: '[]',
      signingSecret: 'a'.repeat(64),
      createdAt: String(T0),
      updatedAt: String(T0),
    });
    expect(await store.getConfig('agency-a')).toMatchObject({ disabledAt: null, disabledReason: null });

    await store.disableConfig('agency-a', {
      reason: 'auto_disabled_failing',
      now: T0 + 1,
      expectedUpdatedAt: T0,
    });
    expect(
      await redis.hmget(`${store.keys.base}cfg:agency-a`, 'enabled', 'disabledAt', 'disabledReason'),
    ).toEqual(['0', String(T0 + 1), 'auto_disabled_failing']);
    await store.upsertConfig({
      agencyId: 'agency-a',
      webhookUrl: 'https://hooks.example.com/a',
      enabled: true,
      subscribedEventTypes: [],
      now: T0 + 2,
      newId: 'unused',
      newSigningSecret: 'b'.repeat(64),
    });
    expect(await redis.hexists(`${store.keys.base}cfg:agency-a`, 'disabledAt')).toBe(0);
    expect(await redis.hexists(`${store.keys.base}cfg:agency-a`, 'disabledReason')).toBe(0);
  });

  it('a disable reaches linked stores in other processes at once (their cached configuration is dropped)', async () => {
    prefix = uniquePrefix('health-linked');
    linked = createRedisWebhooks({ redis: REDIS_URL, prefix });
    const writer = createRedisStore({ redis, prefix });
    await writer.upsertConfig({
      agencyId: 'agency-a',
      webhookUrl: 'https://hooks.example.com/a',
      enabled: true,
      subscribedEventTypes: [],
      now: T0,
      newId: 'cfg-a',
      newSigningSecret: 'a'.repeat(64),
    });
    expect((await linked.store.getConfig('agency-a'))?.enabled, 'cached as enabled').toBe(true);
    await writer.disableConfig('agency-a', {
      reason: 'auto_disabled_failing',
      now: T0 + 1,
      expectedUpdatedAt: T0,
    });
    const deadline = Date.now() + 5_000;
    let seen = await linked.store.getConfig('agency-a');
    while (seen?.enabled && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      seen = await linked.store.getConfig('agency-a');
    }
    expect(seen).toMatchObject({ enabled: false, disabledReason: 'auto_disabled_failing' });
  });

  it('a Redis-backed service disables an endpoint failing for five days, once, and a PUT clears it', async () => {
    prefix = uniquePrefix('health-e2e');
    linked = createRedisWebhooks({ redis: REDIS_URL, prefix });
    const pair = linked;
    let offset = 0;
    const disabled: string[] = [];
    harness = await startServiceHarness({
      store: () => pair.store,
      queue: () => pair.queue,
      service: {
        retry: { ...FAST_RETRY, maxAttempts: 1 },
        circuitBreaker: { failureThreshold: 100 },
        clock: () => Date.now() + offset,
        hooks: { onEndpointDisabled: (event) => disabled.push(event.reason) },
      },
      worker: { pollIntervalMs: 20, recoverySweep: false },
    });
    harness.receiver.respond(() => ({ status: 410 }));
    await harness.configure('agency-a');
    const first = await harness.webhooks.emit(jobCancelled('agency-a', 1));
    await harness.waitForStatus('agency-a', first?.deliveryId as string, 'failed');
    // The clock moves only once the first failure is on the breaker, at the time it happened.
    await harness.waitForHealth('agency-a', (health) => health.consecutiveFailures === 1);
    offset = 432_000_000;
    const second = await harness.webhooks.emit(jobCancelled('agency-a', 2));
    await harness.waitForStatus('agency-a', second?.deliveryId as string, 'failed');
    await harness.worker.stop();
    expect(await harness.webhooks.getEndpointHealth('agency-a')).toMatchObject({
      state: 'disabled',
      consecutiveFailures: 2,
      disabledReason: 'auto_disabled_failing',
    });
    expect(disabled).toEqual(['auto_disabled_failing']);
    await harness.configure('agency-a');
    expect(await harness.webhooks.getEndpointHealth('agency-a')).toMatchObject({
      state: 'healthy',
      consecutiveFailures: 0,
      disabledReason: null,
    });
  });
});
