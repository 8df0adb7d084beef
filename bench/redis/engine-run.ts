import type { Redis } from 'ioredis';
import { createWebhookService, createWorker, type WebhookHooks } from '@svc/webhooks-core';
import { createRedisQueue, createRedisStore } from '../../packages/redis/src/index';
import { AGENCY, type BenchSetup, jobCancelled, until } from './bench-setup';

/** Our engine on Redis: a service, one worker, the Redis store and queue under a fresh prefix. */
async function startEngine(
  setup: BenchSetup,
  name: string,
  concurrency: number,
  hooks: WebhookHooks,
  redis: Redis = setup.redis,
) {
  const prefix = `${setup.prefix}${name}:`;
  const store = createRedisStore({ redis, prefix });
  const queue = createRedisQueue({ redis, prefix });
  const webhooks = createWebhookService({
    store,
    queue,
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: setup.receiver.ca }, connectionsPerOrigin: concurrency },
    hooks,
  });
  await webhooks.putConfig(AGENCY, {
    webhookUrl: setup.receiver.url,
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
  });
  // The configuration must carry the secret the receiver verifies with.
  await store.setSigningSecret(AGENCY, setup.secret, Date.now());
  const worker = createWorker(webhooks, { concurrency, perAgencyConcurrency: concurrency });
  await worker.start();
  return {
    webhooks,
    async stop() {
      await worker.stop();
      await webhooks.close();
      await queue.close();
    },
  };
}

/** Emits `count` deliveries one after another while the worker drains them; deliveries/s from first emit to last recorded 2xx. */
export async function measureEngineThroughput(
  setup: BenchSetup,
  name: string,
  count: number,
  concurrency: number,
  redis?: Redis,
): Promise<number> {
  let delivered = 0;
  const engine = await startEngine(setup, name, concurrency, { onDelivered: () => void delivered++ }, redis);
  const started = performance.now();
  for (let index = 0; index < count; index++) await engine.webhooks.emit(jobCancelled(index));
  await until(() => delivered >= count, 120_000, `${count} engine deliveries`);
  const seconds = (performance.now() - started) / 1000;
  await engine.stop();
  return count / seconds;
}

/** Emits at a steady pace; returns each delivery's time from `emit` to its 2xx being recorded, in ms. */
export async function measureEngineLatency(
  setup: BenchSetup,
  name: string,
  perSecond: number,
  count: number,
): Promise<number[]> {
  const emittedAt = new Map<string, number>();
  const deliveredAt = new Map<string, number>();
  const engine = await startEngine(setup, name, 64, {
    onDelivered: (delivery) => void deliveredAt.set(delivery.id, performance.now()),
  });
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    const wait = started + (index * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const at = performance.now();
    const emitted = await engine.webhooks.emit(jobCancelled(index));
    if (emitted) emittedAt.set(emitted.deliveryId, at);
  }
  await until(() => deliveredAt.size >= count, 30_000, 'paced engine deliveries');
  await engine.stop();
  return [...emittedAt].map(([id, at]) => (deliveredAt.get(id) ?? Number.NaN) - at);
}
