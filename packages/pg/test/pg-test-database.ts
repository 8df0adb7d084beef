import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import { migrate } from '../src/index';

/** The database the tests use; each run works in schemas of its own and drops them. */
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function probe(): Promise<string | null> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const unreachable = await probe();
if (unreachable !== null) {
  const message = `PostgreSQL at ${DATABASE_URL} is unreachable (${unreachable}).`;
  // In CI a missing database is a failure, never a quiet skip.
  if (process.env.CI === 'true') throw new Error(`${message} CI=true requires it.`);
  console.warn(`\n!!! SKIPPING @svc/webhooks-pg tests: ${message} Set DATABASE_URL to run them. !!!\n`);
}

/** `describe`, skipped (loudly, above) when the database is unreachable outside CI. */
export function describePg(name: string, body: () => void): void {
  describe.skipIf(unreachable !== null)(name, body);
}

/**
 * PgBouncer in transaction mode in front of the test database (`.ci/pgbouncer.sh`
 * starts one). Unset: the pooler tests skip, loudly, except with `CI=true`,
 * where they fail, so CI can never skip them quietly.
 */
export const PGBOUNCER_URL = process.env.PGBOUNCER_URL ?? '';

/**
 * `describe` for tests through PgBouncer: skipped (loudly) when `PGBOUNCER_URL`
 * is unset or the database is unreachable outside CI; a failure with `CI=true`.
 */
export function describePooler(name: string, body: () => void): void {
  if (PGBOUNCER_URL === '' && process.env.CI === 'true') {
    describe(name, () => {
      it('runs through PgBouncer', () => {
        throw new Error(
          'PGBOUNCER_URL is not set: CI=true requires the pooler tests (run .ci/pgbouncer.sh).',
        );
      });
    });
    return;
  }
  if (PGBOUNCER_URL === '' && unreachable === null) {
    console.warn(
      `\n!!! SKIPPING "${name}": PGBOUNCER_URL is not set (run .ci/pgbouncer.sh and export it). !!!\n`,
    );
  }
  describe.skipIf(unreachable !== null || PGBOUNCER_URL === '')(name, body);
}

/** A new pool through PgBouncer (see {@link PGBOUNCER_URL}). */
export function createPoolerPool(options: pg.PoolConfig = {}): pg.Pool {
  return createTestPool({ connectionString: PGBOUNCER_URL, ...options });
}

/** A new pool on the test database. */
export function createTestPool(options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10, ...options });
  // An idle connection the server drops (a restart, an admin's pg_terminate_backend)
  // must not crash the test run; the pool replaces it on the next query.
  pool.on('error', (error) => console.warn(`idle PostgreSQL connection lost: ${error.message}`));
  return pool;
}

/** A fresh, unique schema name (not created). */
export function uniqueSchemaName(prefix = 'wh_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Creates and migrates a fresh schema; `drop()` removes it with everything in it. */
export async function createTestSchema(
  pool: pg.Pool,
): Promise<{ schema: string; drop: () => Promise<void> }> {
  const schema = uniqueSchemaName();
  await migrate({ pool, schema });
  return { schema, drop: () => dropSchema(pool, schema) };
}

/** Drops a test schema (and its tables, function and trigger). */
export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** Empties the tables of a schema between tests (much faster than a new schema). */
export async function truncateSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(
    `TRUNCATE "${schema}".webhook_attempts, "${schema}".webhook_deliveries, "${schema}".webhook_configs, "${schema}".webhook_circuits, "${schema}".webhook_recoveries`,
  );
}

/**
 * Inside a describe block: a migrated schema for the whole block, emptied before
 * each test, then dropped and `pool` ended after the block. Read `.schema` inside
 * hooks and tests (it is set once the block starts).
 */
export function useTestSchema(pool: pg.Pool): { readonly schema: string } {
  let schema = '';
  beforeAll(async () => {
    schema = uniqueSchemaName();
    await migrate({ pool, schema });
  });
  beforeEach(() => truncateSchema(pool, schema));
  afterAll(async () => {
    await dropSchema(pool, schema);
    await pool.end();
  });
  return {
    get schema() {
      return schema;
    },
  };
}
