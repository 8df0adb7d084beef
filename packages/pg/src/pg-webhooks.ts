import type { DeliveryQueue, WebhookStore } from '@svc/webhooks-core';
import { requirePool } from './queryable';
import { createPgQueue, type PgQueueOptions } from './queue/pg-queue';
import { createPgStore } from './store/pg-store';

/**
 * Options of {@link createPgWebhooks}: the queue's options; the store uses
 * `pool`, `schema` and `preparedStatements` of them.
 */
export type PgWebhooksOptions = PgQueueOptions;

/** The store and queue of one schema, ready for `createWebhookService`. */
export interface PgWebhooks {
  /** The PostgreSQL store (see {@link createPgStore}). */
  store: WebhookStore;
  /** The PostgreSQL queue on the store's table (see {@link createPgQueue}). */
  queue: DeliveryQueue;
  /** Closes both (the LISTEN connection); never ends the pool. Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates the PostgreSQL store and queue over one schema: the usual way to use
 * this package.
 *
 * @throws InvalidOptionError (`invalid_option`) when `pool` is missing or `schema` is not a plain identifier
 * @example
 * ```ts
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migrate({ pool });
 * const { store, queue } = createPgWebhooks({ pool });
 * const webhooks = createWebhookService({ store, queue });
 * ```
 */
export function createPgWebhooks(options: PgWebhooksOptions): PgWebhooks {
  const pool = requirePool(options, 'createPgWebhooks');
  const store = createPgStore({
    pool,
    schema: options.schema,
    preparedStatements: options.preparedStatements,
  });
  const queue = createPgQueue({ ...options, pool });
  return {
    store,
    queue,
    async close() {
      await queue.close?.();
      await store.close?.();
    },
  };
}
