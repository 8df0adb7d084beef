import { createWebhookService, createWorker, type WebhookHooks } from '@svc/webhooks-core';
import { Redis } from 'ioredis';
import { createRedisQueue, createRedisStore, createRedisWebhooks } from '../../packages/redis/src/index';
import { jobCancelled } from '../lib/memory-fixtures';
import { AGENCY, type BenchSetup, REDIS_URL, type Regime, until } from './bench-setup';

/**
 * How the engine's store and queue are made: `linked` is `createRedisWebhooks`
 * (the store's scripts also move queue entries), `separate` is
 * `createRedisStore` + `createRedisQueue` (the mix-and-match form).
 */
export type EngineMode = 'linked' | 'separate';

function openAdapters(redis: Redis, prefix: string, mode: EngineMode) {
  if (mode === 'linked') return createRedisWebhooks({ redis, prefix });
  const store = createRedisStore({ redis, prefix });
  const queue = createRedisQueue({ redis, prefix });
  return { store, queue, close: () => queue.close() };
}

/**
 * Our engine on Redis over a fresh key prefix: a producer service that emits and
 * a worker service that delivers, each on its own connection, as the BullMQ
 * baseline's Queue and Worker are (and as a web process and a worker process are).
 */
async function startEngine(
  setup: BenchSetup,
  name: string,
  mode: EngineMode,
  concurrency: number,
  hooks: WebhookHooks,
) {
  const prefix = `${setup.prefix}${name}:`;
  const producer = openAdapters(setup.redis, prefix, mode);
  const workerRedis = new Redis(REDIS_URL);
  const consumer = openAdapters(workerRedis, prefix, mode);
  const webhooks = createWebhookService({
    store: producer.store,
    queue: producer.queue,
    urlPolicy: { allowPrivateNetworks: true },
  });
  const delivering = createWebhookService({
    store: consumer.store,
    queue: consumer.queue,
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
  await producer.store.setSigningSecret(AGENCY, setup.secret, Date.now());
  const worker = createWorker(delivering, { concurrency, perAgencyConcurrency: concurrency });
  return {
    webhooks,
    worker,
    async stop() {
      await worker.stop();
      await delivering.close();
      await webhooks.close();
      await consumer.close();
      await producer.close();
      await workerRedis.quit();
    },
  };
}

/** Deliveries/s of `count` deliveries emitted one after another, in the given {@link Regime}. */
export async function measureEngineRate(
  setup: BenchSetup,
  name: string,
  mode: EngineMode,
  regime: Regime,
  count: number,
  concurrency: number,
): Promise<number> {
  let delivered = 0;
  const engine = await startEngine(setup, name, mode, concurrency, { onDelivered: () => void delivered++ });
  const emitAll = async () => {
    for (let index = 0; index < count; index++) await engine.webhooks.emit(jobCancelled(AGENCY, index));
  };
  const startWorker = () => engine.worker.start();
  const [before, timed] = regime === 'live' ? [startWorker, emitAll] : [emitAll, startWorker];
  await before();
  const started = performance.now();
  await timed();
  await until(() => delivered >= count, 120_000, `${count} engine deliveries`);
  const seconds = (performance.now() - started) / 1000;
  await engine.stop();
  return count / seconds;
}

/** Emits at a steady pace; returns each delivery's time from `emit` to its 2xx being recorded, in ms. */
export async function measureEngineLatency(
  setup: BenchSetup,
  name: string,
  mode: EngineMode,
  perSecond: number,
  count: number,
): Promise<number[]> {
  const emittedAt = new Map<string, number>();
  const deliveredAt = new Map<string, number>();
  const engine = await startEngine(setup, name, mode, 64, {
    onDelivered: (delivery) => void deliveredAt.set(delivery.id, performance.now()),
  });
  await engine.worker.start();
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    const wait = started + (index * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const at = performance.now();
    const emitted = await engine.webhooks.emit(jobCancelled(AGENCY, index));
    if (emitted) emittedAt.set(emitted.deliveryId, at);
  }
  await until(() => deliveredAt.size >= count, 30_000, 'paced engine deliveries');
  await engine.stop();
  return [...emittedAt].map(([id, at]) => (deliveredAt.get(id) ?? Number.NaN) - at);
}
