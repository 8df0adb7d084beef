import { createWebhookService, createWorker } from '@svc/webhooks-core';
import { createRedisWebhooks } from '@svc/webhooks-redis';
import { Redis } from 'ioredis';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const { store, queue, close } = createRedisWebhooks({
  redis,
  prefix: process.env.WEBHOOKS_PREFIX ?? 'myapp:',
});
export const webhooks = createWebhookService({ store, queue });

// In each worker process (any number of them, on any number of machines):
export const worker = createWorker(webhooks, { concurrency: 64 });
await worker.start();

export async function shutdown(): Promise<void> {
  await worker.stop(); // finishes attempts in flight
  await webhooks.close();
  await close(); // never quits `redis`: it is yours
  await redis.quit();
}
