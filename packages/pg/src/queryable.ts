import { InvalidOptionError, type TransactionOptions } from '@svc/webhooks-core';
import type { Pool, PoolClient } from 'pg';

/** Anything that runs queries: the pool, or a host's transaction client. */
export type Queryable = Pick<Pool | PoolClient, 'query'>;

/** True for a node-postgres pool (or anything with the two methods the adapters use). */
function isPool(value: unknown): value is Pool {
  const candidate = value as Partial<Record<'query' | 'connect', unknown>> | null | undefined;
  return typeof candidate?.query === 'function' && typeof candidate.connect === 'function';
}

/**
 * The `pool` option every factory of this package requires. Each takes one
 * options object, so a pool passed on its own (`createPgStore(pool)`) gets a
 * message that says how to call it instead.
 * @throws InvalidOptionError (`invalid_option`, option `pool`) when `options.pool` is not a pg pool
 */
export function requirePool(options: { pool?: unknown } | undefined, caller: string): Pool {
  const pool = options?.pool;
  if (isPool(pool)) return pool;
  const detail = isPool(options)
    ? `it was given the pool itself: call ${caller}({ pool }), not ${caller}(pool).`
    : `pass the host's pool, e.g. ${caller}({ pool: new pg.Pool({ connectionString }) }).`;
  throw new InvalidOptionError(
    '@svc/webhooks-pg',
    'pool',
    `${caller}() needs a node-postgres pool as \`pool\`: ${detail}`,
  );
}

/**
 * Where a write runs: on the host's transaction client when one is passed (the
 * outbox: the write commits or rolls back with the host's own changes), on the
 * pool otherwise.
 * @throws InvalidOptionError (`invalid_option`, option `transaction`) when `transaction` is not a pg client
 */
export function transactionTarget(pool: Pool, options: TransactionOptions | undefined): Queryable {
  const transaction = options?.transaction;
  if (transaction === undefined || transaction === null) return pool;
  if (typeof (transaction as { query?: unknown }).query !== 'function') {
    throw new InvalidOptionError(
      '@svc/webhooks-pg',
      'transaction',
      '`transaction` must be a node-postgres client (from pool.connect()) on which the host ran BEGIN.',
    );
  }
  return transaction as Queryable;
}
