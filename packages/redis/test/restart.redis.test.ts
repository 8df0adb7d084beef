import { jobCancelled, startTestReceiver, type TestReceiver } from '@svc/test-support';
import { createWebhookService, type WebhookService } from '@svc/webhooks-core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createRedisQueue,
  createRedisStore,
  type RedisDeliveryQueue,
  type RedisWebhookStore,
} from '../src/index';
import { describeRedis } from './redis-test-env';
import { redisServerAvailable, startThrowawayRedis, type ThrowawayRedis } from './throwaway-redis';
import { spawnWorkerProcess, type WorkerProcess } from './worker-processes';

const PER_PHASE = 1_000;
const AGENCIES = ['agency-1', 'agency-2', 'agency-3'];

async function emitPhase(webhooks: WebhookService, from: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = from; start < from + PER_PHASE; start += 200) {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, offset) =>
        webhooks.emit(jobCancelled(AGENCIES[(start + offset) % AGENCIES.length]!, start + offset)),
      ),
    );
    for (const result of results) ids.push(result!.deliveryId);
  }
  return ids;
}

function distinctArrivals(receiver: TestReceiver): Set<string> {
  return new Set(receiver.requests.map((request) => String(request.headers['x-service-webhook-id'])));
}

describeRedis(
  'a Redis restart mid-run',
  () => {
    let server: ThrowawayRedis;
    let redis: Redis;
    let receiver: TestReceiver;
    let store: RedisWebhookStore;
    let queue: RedisDeliveryQueue;
    let webhooks: WebhookService;
    const workers: WorkerProcess[] = [];

    beforeAll(async () => {
      server = await startThrowawayRedis();
      redis = new Redis(server.url);
      redis.on('error', () => {});
      receiver = await startTestReceiver();
      store = createRedisStore({ redis, prefix: 'whk:' });
      queue = createRedisQueue({ redis, prefix: 'whk:' });
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
      redis?.disconnect();
      await receiver?.close();
      await server?.destroy();
    });

    it('workers reconnect after redis-server is stopped and started again, and every delivery arrives', async () => {
      const options = {
        redisUrl: server.url,
        prefix: 'whk:',
        receiverCa: receiver.ca,
        concurrency: 16,
        leaseMs: 3_000,
        linked: false,
      };
      workers.push(...(await Promise.all([0, 1, 2].map(() => spawnWorkerProcess(options)))));

      const before = await emitPhase(webhooks, 0);
      await expect
        .poll(() => receiver.requests.length, { timeout: 20_000, interval: 10 })
        .toBeGreaterThanOrEqual(200);
      await server.stop();
      const duringOutage = receiver.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await server.start();

      const after = await emitPhase(webhooks, PER_PHASE);
      const expected = new Set([...before, ...after].map((id) => `whdel_${id}`));
      await expect
        .poll(() => distinctArrivals(receiver).size, { timeout: 45_000, interval: 100 })
        .toBe(expected.size);
      expect(distinctArrivals(receiver)).toEqual(expected);
      expect(duringOutage, 'Redis stopped while deliveries were still outstanding').toBeLessThan(PER_PHASE);
      for (const agency of AGENCIES) {
        await expect
          .poll(() => store.listDeliveries(agency, { status: 'pending', limit: 10 }), { timeout: 15_000 })
          .toEqual([]);
      }
      await expect.poll(() => queue.counts(), { timeout: 15_000 }).toEqual({ queued: 0, claimed: 0 });
      await Promise.all(workers.map((worker) => worker.stop()));
    }, 120_000);
  },
  !redisServerAvailable,
);
