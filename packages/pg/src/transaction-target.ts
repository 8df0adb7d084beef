import { type TransactionOptions, WebhookError } from '@svc/webhooks-core';
import type { Pool } from 'pg';
import type { Queryable } from './statement';

/**
 * Where a write runs: on the host's transaction client when one is passed (the
 * outbox: the write commits or rolls back with the host's own changes), on the
 * pool otherwise.
 * @throws WebhookError (`validation_failed`) when `transaction` is not a pg client
 */
export function transactionTarget(pool: Pool, options: TransactionOptions | undefined): Queryable {
  const transaction = options?.transaction;
  if (transaction === undefined || transaction === null) return pool;
  if (typeof (transaction as { query?: unknown }).query !== 'function') {
    throw new WebhookError(
      'validation_failed',
      'options.transaction must be a node-postgres client (from pool.connect()) on which the host ran BEGIN.',
    );
  }
  return transaction as Queryable;
}
