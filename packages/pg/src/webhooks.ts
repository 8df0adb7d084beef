import type { DeliveryQueue, WebhookStore } from '@svc/webhooks-core';
import type { Pool } from 'pg';
import { createPgQueue, type PgQueueOptions } from './queue';
import { createPgStore } from './store';

/** Options of {@link createPgWebhooks}: the queue's options (the store uses `schema` and `preparedStatements`). */
export type PgWebhooksOptions = PgQueueOptions;

/** The store and queue of one schema, ready for `createWebhookService`. */
export interface PgWebhooks {
  store: WebhookStore;
  queue: DeliveryQueue;
  /** Closes both (the LISTEN connection); never ends the pool. Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates the PostgreSQL store and queue over one schema: the usual way to use
 * this package.
 *
 * @example
 * ```ts
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migrate(pool);
 * const { store, queue } = createPgWebhooks(pool);
 * const webhooks = createWebhookService({ store, queue });
 * ```
 */
export function createPgWebhooks(pool: Pool, options: PgWebhooksOptions = {}): PgWebhooks {
  const store = createPgStore(pool, {
    schema: options.schema,
    preparedStatements: options.preparedStatements,
  });
  const queue = createPgQueue(pool, options);
  return {
    store,
    queue,
    async close() {
      await queue.close?.();
      await store.close?.();
    },
  };
}
