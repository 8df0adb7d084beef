import { randomBytes } from 'node:crypto';
import {
  createMemoryQueue,
  createMemoryStore,
  type DeliveryQueue,
  type WebhookStore,
} from '@svc/webhooks-core';
import { Redis } from 'ioredis';
import { createPgQueue, createPgStore } from '../../packages/pg/src/index';
import { createRedisWebhooks } from '../../packages/redis/src/index';
import { createBenchPool, freshSchema } from '../pg/bench-database';
import { removeKeysUnder } from '../redis/redis-keys';

export const BACKENDS = ['memory', 'pg', 'redis'] as const;
export type BackendKind = (typeof BACKENDS)[number];

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Connections of each measurement's own pool: enough for the default worker's store and queue calls. */
const PG_POOL_SIZE = 16;
/** One namespace per run, so a run never reads (or deletes) another's schemas or keys. */
const RUN_ID = randomBytes(3).toString('hex');

/** A fresh, empty store and queue for one measurement, and how to remove them afterwards. */
export interface Backend {
  store: WebhookStore;
  queue: DeliveryQueue;
  /** Closes the queue and the connections, and drops the schema or keys. */
  close(): Promise<void>;
}

/**
 * Opens a fresh backend named `name` (unique per measurement). Each measurement
 * has its own schema or key prefix, and its own connections: a measurement
 * still waiting for its hanging attempts to time out must neither see the next
 * measurement's entries nor share its connections.
 */
export function openBackend(kind: BackendKind, name: string): Promise<Backend> {
  switch (kind) {
    case 'memory':
      return Promise.resolve({
        store: createMemoryStore(),
        queue: createMemoryQueue(),
        close: async () => {},
      });
    case 'pg':
      return openPg(name);
    case 'redis':
      return Promise.resolve(openRedis(name));
  }
}

async function openPg(name: string): Promise<Backend> {
  const schema = `bench_isolation_${RUN_ID}_${name.replaceAll('-', '_')}`;
  const pool = createBenchPool(PG_POOL_SIZE);
  await freshSchema(pool, schema);
  const store = createPgStore({ pool, schema });
  const queue = createPgQueue({ pool, schema });
  return {
    store,
    queue,
    async close() {
      await queue.close?.();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

/** The linked pair, the usual way to run on Redis alone (docs/redis.md). */
function openRedis(name: string): Backend {
  const prefix = `whk-bench-isolation:${RUN_ID}:${name}:`;
  const redis = new Redis(REDIS_URL);
  const linked = createRedisWebhooks({ redis, prefix });
  return {
    store: linked.store,
    queue: linked.queue,
    async close() {
      await linked.close();
      await removeKeysUnder(redis, prefix);
      await redis.quit();
    },
  };
}
