import { jobCancelled, startTestReceiver, type TestReceiver } from '@svc/test-support';
import { createWebhookService, type WebhookService } from '@svc/webhooks-core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisWebhooks, type RedisDeliveryQueue, type RedisWebhookStore } from '../src/index';
import { connectTestRedis, describeRedis, REDIS_URL, removeKeys, uniquePrefix } from './redis-test-env';
import { spawnWorkerProcess, type WorkerProcess } from './worker-processes';

const DELIVERIES = 5_000;
const AGENCIES = ['agency-1', 'agency-2', 'agency-3', 'agency-4', 'agency-5'];
const CONCURRENCY = 16;
const LEASE_MS = 2_000;

/** Emits in chunks so the test process never holds thousands of pending promises at once. */
async function emitMany(webhooks: WebhookService, from: number, to: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = from; start < to; start += 250) {
    const chunk = Array.from({ length: Math.min(250, to - start) }, (_, offset) => start + offset);
    const results = await Promise.all(
      chunk.map((index) => webhooks.emit(jobCancelled(AGENCIES[index % AGENCIES.length]!, index))),
    );
    for (const result of results) ids.push(result!.deliveryId);
  }
  return ids;
}

/** Distinct webhook ids the receiver has seen, and how many requests repeated one. */
function arrivals(receiver: TestReceiver): { distinct: Set<string>; repeats: number } {
  const distinct = new Set(
    receiver.requests.map((request) => String(request.headers['x-service-webhook-id'])),
  );
  return { distinct, repeats: receiver.requests.length - distinct.size };
}

describeRedis('many worker processes on one Redis', () => {
  let redis: Redis;
  let prefix: string;
  let receiver: TestReceiver;
  let store: RedisWebhookStore;
  let queue: RedisDeliveryQueue;
  let webhooks: WebhookService;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = connectTestRedis();
    prefix = uniquePrefix('workers');
    receiver = await startTestReceiver();
    // The linked pair, as most Redis-only hosts run it (restart.redis.test.ts covers the separate pair).
    ({ store, queue } = createRedisWebhooks({ redis, prefix }));
    webhooks = createWebhookService({ store, queue, urlPolicy: { allowPrivateNetworks: true } });
    for (const agency of AGENCIES) {
      await webhooks.putConfig(agency, {
        webhookUrl: receiver.url,
        enabled: true,
        subscribedEventTypes: ['job_cancelled'],
      });
    }
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await webhooks?.close();
    await queue?.close();
    await receiver?.close();
    await removeKeys(redis, prefix);
    await redis.quit();
  });

  it(`3 worker processes deliver ${DELIVERIES} deliveries; one is SIGKILLed mid-run and nothing is lost`, async () => {
    const options = {
      redisUrl: REDIS_URL,
      prefix,
      receiverCa: receiver.ca,
      concurrency: CONCURRENCY,
      leaseMs: LEASE_MS,
      linked: true,
    };
    workers.push(...(await Promise.all([0, 1, 2].map(() => spawnWorkerProcess(options)))));

    const emitting = emitMany(webhooks, 0, DELIVERIES);
    await expect
      .poll(() => receiver.requests.length, { timeout: 40_000, interval: 20 })
      .toBeGreaterThanOrEqual(1_000);
    await workers[0]!.kill();
    const killedAt = receiver.requests.length;
    expect((await queue.counts()).claimed, 'entries under lease when the worker died').toBeGreaterThan(0);
    const ids = await emitting;

    await expect
      .poll(() => arrivals(receiver).distinct.size, { timeout: 45_000, interval: 100 })
      .toBe(DELIVERIES);
    expect(killedAt, 'the kill happened mid-run').toBeLessThan(DELIVERIES);
    expect(arrivals(receiver).distinct).toEqual(new Set(ids.map((id) => `whdel_${id}`)));
    // At-least-once: only attempts in flight in the killed worker may be sent twice.
    expect(arrivals(receiver).repeats, 'requests sent twice').toBeLessThanOrEqual(CONCURRENCY);

    for (const agency of AGENCIES) {
      await expect
        .poll(() => store.listDeliveries(agency, { status: 'pending', limit: 10 }), { timeout: 15_000 })
        .toEqual([]);
      expect(await store.listDeliveries(agency, { status: 'failed', limit: 10 })).toEqual([]);
    }
    await expect.poll(() => queue.counts(), { timeout: 15_000 }).toEqual({ queued: 0, claimed: 0 });
    await Promise.all(workers.slice(1).map((worker) => worker.stop()));

    // Each delivery's history holds its one recorded attempt exactly once, the one its record
    // shows: written by the same script as the update, never twice, never lost.
    for (let start = 0; start < ids.length; start += 250) {
      const chunk = ids.slice(start, start + 250);
      const [records, histories] = await Promise.all([
        Promise.all(chunk.map((id) => store.getDelivery(id))),
        Promise.all(chunk.map((id) => store.listAttempts(id))),
      ]);
      histories.forEach((history, index) => {
        const record = records[index];
        expect(history, `history of ${chunk[index]}`).toEqual([
          expect.objectContaining({
            attempt: 1,
            trigger: 'automatic',
            startedAt: record?.lastAttemptAt,
            responseCode: record?.lastResponseCode,
          }),
        ]);
      });
    }
  }, 120_000);
});
