import { randomBytes } from 'node:crypto';
import {
  createMemoryQueue,
  createMemoryStore,
  type DeliveryQueue,
  type WebhookStore,
} from '@svc/webhooks-core';
import { Redis } from 'ioredis';
import { createPgWebhooks } from '../../packages/pg/src/index';
import { createRedisWebhooks } from '../../packages/redis/src/index';
import type { BackendKind } from '../isolation/backends';
import { createBenchPool, freshSchema } from '../pg/bench-database';
import { removeKeysUnder } from '../redis/redis-keys';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN_ID = randomBytes(3).toString('hex');

/** One backend that several simulated processes open, each with its own store and queue (and connections). */
export interface SharedBackend {
  open(): Promise<{ store: WebhookStore; queue: DeliveryQueue }>;
  /** Closes what every `open` opened, then drops the schema or keys. */
  close(): Promise<void>;
}

/** A fresh backend named `name`: a schema on PostgreSQL, a key prefix on Redis, one store and queue in memory. */
export async function openSharedBackend(kind: BackendKind, name: string): Promise<SharedBackend> {
  if (kind === 'memory') {
    // One process's memory is the whole backend: every "process" shares the pair.
    const pair = { store: createMemoryStore(), queue: createMemoryQueue() };
    return { open: async () => pair, close: async () => {} };
  }
  const closers: Array<() => Promise<void>> = [];
  if (kind === 'pg') {
    const schema = `bench_paused_${RUN_ID}_${name.replaceAll('-', '_')}`;
    const setup = createBenchPool(2);
    await freshSchema(setup, schema);
    return {
      async open() {
        const pool = createBenchPool(10);
        const webhooks = createPgWebhooks({ pool, schema });
        closers.push(async () => {
          await webhooks.close();
          await pool.end();
        });
        return webhooks;
      },
      async close() {
        for (const close of closers) await close();
        await setup.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await setup.end();
      },
    };
  }
  const prefix = `whk-bench-paused:${RUN_ID}:${name}:`;
  return {
    async open() {
      const webhooks = createRedisWebhooks({ redis: REDIS_URL, prefix });
      closers.push(() => webhooks.close());
      return webhooks;
    },
    async close() {
      for (const close of closers) await close();
      const redis = new Redis(REDIS_URL);
      await removeKeysUnder(redis, prefix);
      await redis.quit();
    },
  };
}
