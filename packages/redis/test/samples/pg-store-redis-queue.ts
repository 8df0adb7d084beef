import { createRecoverySweep, createWebhookService, createWorker } from '@svc/webhooks-core';
import { createPgStore, migrate } from '@svc/webhooks-pg';
import { createRedisQueue } from '@svc/webhooks-redis';
import { Redis } from 'ioredis';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const schema = process.env.WEBHOOKS_SCHEMA ?? 'webhooks';
await migrate({ pool, schema });
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

const store = createPgStore({ pool, schema });
const queue = createRedisQueue({ redis, prefix: process.env.WEBHOOKS_PREFIX ?? 'myapp:' });
export const webhooks = createWebhookService({ store, queue });

// Two systems, no shared transaction: re-enqueue what a crash between them lost.
const sweep = createRecoverySweep({ store, queue, graceMs: 300_000, intervalMs: 60_000 });
sweep.start();
export const worker = createWorker(webhooks, { concurrency: 64, recoverySweep: false });
await worker.start();

export async function shutdown(): Promise<void> {
  await worker.stop();
  await sweep.stop();
  await webhooks.close();
  await queue.close();
  await redis.quit();
  await pool.end();
}
