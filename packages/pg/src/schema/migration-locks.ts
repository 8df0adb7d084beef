import { WebhookError } from '@svc/webhooks-core';
import { sleep } from '@svc/webhooks-core/adapter-kit';
import type { PoolClient } from 'pg';
import { LOCK_ORDER, type Migration } from './migration';
import type { SchemaName } from './schema-name';

/**
 * How long one try of a migration waits for a table lock. Below PostgreSQL's
 * default `deadlock_timeout` (1 s), so when a wait of ours and one of live
 * traffic ever formed a cycle, ours gives up before the deadlock check of
 * either side runs: the migration tries again, the host's statement goes on.
 * It also bounds how long statements queued behind our lock request wait.
 */
export const LOCK_TIMEOUT_MS = 250;

/** Tries per migration before migrate() gives up (about 3 minutes with the delays below). */
export const MAX_LOCK_TRIES = 100;

/** PostgreSQL codes of a lock wait given up: `lock_timeout` (55P03) and a deadlock victim (40P01). */
const LOCK_WAIT_CODES = new Set(['55P03', '40P01']);

/**
 * Takes the table locks the migration declares, strongest needed first, in
 * {@link LOCK_ORDER}, after setting this transaction's `lock_timeout`: the
 * migration's statements then never wait on a lock, nor upgrade one, while it
 * holds another (see docs/postgres.md, "Locks").
 */
export async function lockMigrationTables(
  client: PoolClient,
  schema: SchemaName,
  migration: Migration,
): Promise<void> {
  await client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT_MS}ms'`);
  const locks = [...migration.locks].sort(
    (a, b) => LOCK_ORDER.indexOf(a.table) - LOCK_ORDER.indexOf(b.table),
  );
  for (const lock of locks) {
    await client.query(`LOCK TABLE ${schema.quoted}.${lock.table} IN ${lock.mode} MODE`);
  }
}

/** A migration's try that gave up waiting for a lock, as the error migrate() throws after its last try. */
export function lockWaitError(error: unknown, schema: SchemaName, migration: Migration): unknown {
  if (!LOCK_WAIT_CODES.has((error as { code?: string }).code ?? '')) return error;
  const tables = migration.locks.map((lock) => lock.table).join(', ');
  return new WebhookError(
    'store_error',
    `@svc/webhooks-pg: migration ${migration.version} (${migration.name}) of schema "${schema.name}" could not ` +
      `lock ${tables} in ${MAX_LOCK_TRIES} tries of ${LOCK_TIMEOUT_MS} ms: a long transaction holds one of them. ` +
      'Find it in pg_stat_activity, and run migrate() again once it has ended.',
    { cause: error, details: { schema: schema.name, version: migration.version, lockWait: true } },
  );
}

/**
 * Runs `step` (one migration transaction) again after a lock wait it gave up,
 * with growing delays (50 ms doubling to 2 s, jittered) that leave the tables
 * to live traffic meanwhile; any other error, or the last try's, is thrown.
 */
export async function retryLockWaits<T>(step: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await step();
    } catch (error) {
      const lockWait = (error as { details?: { lockWait?: boolean } }).details?.lockWait === true;
      if (!lockWait || tries >= MAX_LOCK_TRIES) throw error;
      const delay = Math.min(2_000, 50 * 2 ** (tries - 1));
      await sleep(delay / 2 + Math.random() * (delay / 2));
    }
  }
}
