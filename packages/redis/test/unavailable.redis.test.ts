import { once } from 'node:events';
import { createServer } from 'node:net';
import { jobCancelled } from '@svc/test-support';
import { createWebhookService, createWorker, StoreUnavailableError } from '@svc/webhooks-core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isTransientRedisError } from '../src/connection/unavailable';
import { createRedisQueue, createRedisStore, createRedisWebhooks } from '../src/index';
import {
  commandCounter,
  connectTestRedis,
  describeRedis,
  REDIS_URL,
  removeKeys,
  uniquePrefix,
} from './redis-test-env';
import { emitWithRetry } from './samples/emit-with-retry';

/** A port nothing listens on: every command meets a refused connection. */
async function deadPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function unreachable(port: number): Redis {
  const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, retryStrategy: () => 20 });
  client.on('error', () => {});
  return client;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('resolved');
}

describeRedis('Redis out of reach: typed, retriable errors', () => {
  let port: number;
  let down: Redis;
  let redis: Redis;
  beforeAll(async () => {
    port = await deadPort();
    down = unreachable(port);
    redis = connectTestRedis();
  });
  afterAll(async () => {
    down.disconnect();
    await redis.quit();
  });

  it('store, queue and emit reject with StoreUnavailableError, the ioredis error as its cause', async () => {
    const { store, queue, close } = createRedisWebhooks({ redis: down, prefix: uniquePrefix('down') });
    const webhooks = createWebhookService({ store, queue });
    for (const call of [
      store.getDelivery('d-1'),
      store.getConfig('agency-1'),
      store.listDeliveries('agency-1', { limit: 10 }),
      queue.counts(),
      webhooks.emit({ ...jobCancelled('agency-1'), eventId: 'evt-1' }),
    ]) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ code: 'store_unavailable', retriable: true, retryAfterMs: 1_000 });
      expect((error as Error).cause).toBeInstanceOf(Error);
      expect(isTransientRedisError((error as Error).cause)).toBe(true);
    }
    await webhooks.close();
    await close();
  });

  it('leaves a mistake a mistake: a reply like WRONGTYPE is not made retriable', async () => {
    const key = `${uniquePrefix('wrongtype')}k`;
    await redis.hset(key, 'a', '1');
    const error = await rejection(redis.lpush(key, 'x'));
    expect((error as Error).message).toMatch(/^WRONGTYPE/);
    expect(isTransientRedisError(error)).toBe(false);
    await redis.del(key);
  });

  it('fails an emit that no replica acknowledges (durability on a Redis without replicas), typed', async () => {
    const prefix = uniquePrefix('no-replica');
    const linked = createRedisWebhooks({ redis, prefix, durability: { replicas: 1, timeoutMs: 20 } });
    const webhooks = createWebhookService({
      store: linked.store,
      queue: linked.queue,
      urlPolicy: { allowPrivateNetworks: true },
    });
    await webhooks.putConfig('agency-1', {
      webhookUrl: 'https://127.0.0.1:9/hooks',
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
    });
    const error = await rejection(webhooks.emit({ ...jobCancelled('agency-1'), eventId: 'evt-1' }));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(String((error as Error).cause)).toContain('0 of 1 replicas acknowledged');
    await webhooks.close();
    await linked.close();
    await removeKeys(redis, prefix);
  });

  it('claims quietly while Redis is away: no error reported, a bounded backoff, then reports after the grace', async () => {
    // Without an offline queue every command fails at once, so only the backoff spaces the claims.
    const failFast = new Redis({
      port,
      host: '127.0.0.1',
      enableOfflineQueue: false,
      retryStrategy: () => 20,
    });
    failFast.on('error', () => {});
    const quiet = createRedisQueue({ redis: failFast, prefix: uniquePrefix('quiet') });
    const sent = commandCounter(failFast);
    const store = createRedisStore({ redis: REDIS_URL, prefix: uniquePrefix('quiet-store') });
    const reported: unknown[] = [];
    const webhooks = createWebhookService({
      store,
      queue: quiet,
      hooks: { onError: (error) => reported.push(error) },
    });
    const worker = createWorker(webhooks, { pollIntervalMs: 5, recoverySweep: false });
    await worker.start();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await worker.stop();
    sent.stop();
    expect(reported).toEqual([]);
    // A claim every 5 ms without the backoff: hundreds of scripts sent. With it (50 ms doubling to 1 s), about ten.
    expect(sent.count()).toBeGreaterThan(2);
    expect(sent.count()).toBeLessThan(30);

    const impatient = createRedisQueue({
      redis: down,
      prefix: uniquePrefix('impatient'),
      unavailableGraceMs: 0,
    });
    const error = await rejection(impatient.claim({ limit: 1, leaseMs: 1_000, now: Date.now() }));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    await webhooks.close();
    await store.close();
    failFast.disconnect();
  }, 20_000);

  it("docs/redis.md's emitWithRetry: a retry with the same eventId stores one delivery; it gives up typed", async () => {
    const prefix = uniquePrefix('retry-sample');
    const linked = createRedisWebhooks({ redis, prefix });
    const webhooks = createWebhookService({
      store: linked.store,
      queue: linked.queue,
      urlPolicy: { allowPrivateNetworks: true },
    });
    await webhooks.putConfig('agency-1', {
      webhookUrl: 'https://127.0.0.1:9/hooks',
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
    });
    const input = { ...jobCancelled('agency-1'), eventId: 'evt-retried' };
    const first = await emitWithRetry(webhooks, input);
    const again = await emitWithRetry(webhooks, input);
    expect(again).toEqual(first);
    expect(await linked.store.listDeliveries('agency-1', { limit: 10 })).toHaveLength(1);
    await webhooks.close();
    await linked.close();
    await removeKeys(redis, prefix);

    const away = createRedisWebhooks({ redis: down, prefix: uniquePrefix('retry-down') });
    const stranded = createWebhookService({ store: away.store, queue: away.queue });
    await expect(emitWithRetry(stranded, input, 2)).rejects.toBeInstanceOf(StoreUnavailableError);
    await stranded.close();
    await away.close();
  });
});
