import { WebhookError } from '@svc/webhooks-core';
import type { Pool, PoolClient } from 'pg';
import { requirePool } from '../queryable';
import { type Migration, migrationChecksum, renderMigration } from './migration';
import { MIGRATIONS } from './migration-list';
import { lockMigrationTables, lockWaitError, retryLockWaits } from './migration-locks';
import { parseSchemaName, type SchemaName } from './schema-name';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /**
   * The host's node-postgres pool. `migrate` runs its transactions on one of
   * its connections, one after the other; the pool is never ended. A pooler in
   * transaction mode (PgBouncer) in front of it is fine.
   * @example migrate({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) })
   */
  pool: Pool;
  /**
   * Schema that holds the tables (created when missing).
   * @default 'webhooks'
   */
  schema?: string;
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** The schema migrated. */
  schema: string;
  /** Version before this call (0: a fresh schema). */
  fromVersion: number;
  /** Version after this call. */
  toVersion: number;
  /** Migrations this call applied, oldest first; empty when already up to date. */
  applied: Array<{ version: number; name: string }>;
}

/**
 * First half of the two-key advisory lock: a constant naming this library, so
 * its locks never collide with the host's single-key advisory locks.
 */
const LOCK_CLASS = 0x57_48_4b_31;

/**
 * Brings the schema up to the version this release needs: creates the schema
 * and the ledger table when missing, then applies each missing migration in its
 * own transaction together with its ledger row.
 *
 * Safe when many processes start at once, and behind a transaction pooler:
 * each transaction first takes a transaction-scoped advisory lock keyed by the
 * schema name (`pg_advisory_xact_lock`), so one process migrates while the
 * others wait, then find nothing left to do; nothing stays held once a
 * transaction ends. Safe while processes of an earlier release run: each
 * migration first locks the tables it touches, in a fixed order, with a short
 * `lock_timeout`, and tries again later when a lock is busy (see
 * docs/postgres.md, "Locks"). Idempotent. Never ends the pool.
 *
 * @throws InvalidOptionError (`invalid_option`) when `pool` is missing or
 *   `schema` is not a plain identifier, before anything touches the database
 * @throws WebhookError (`store_error`) when the ledger records a different
 *   checksum for a shipped version (a released migration was edited), or when a
 *   migration could not take its table locks in 100 tries (a long transaction holds one)
 * @example
 * ```ts
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migrate({ pool }); // schema "webhooks"
 * ```
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const pool = requirePool(options, 'migrate');
  const schema = parseSchemaName(options.schema);
  const client = await pool.connect();
  let broken: Error | boolean = false;
  try {
    return await migrateOn(client, schema);
  } catch (error) {
    broken = error instanceof Error ? error : true;
    throw error;
  } finally {
    // A connection that failed mid-migration may still be in a transaction:
    // destroy it rather than hand it back to the host's pool.
    client.release(broken);
  }
}

async function migrateOn(client: PoolClient, schema: SchemaName): Promise<MigrateResult> {
  let fromVersion: number | undefined;
  const applied: MigrateResult['applied'] = [];
  for (;;) {
    const step = await retryLockWaits(() => migrateStep(client, schema));
    fromVersion ??= step.before;
    if (!step.applied) {
      return { schema: schema.name, fromVersion, toVersion: step.before, applied };
    }
    applied.push({ version: step.applied.version, name: step.applied.name });
  }
}

/**
 * One transaction: under the schema's advisory lock, reads the ledger and
 * applies the first migration it lacks, if any. READ COMMITTED whatever the
 * host's default, so the ledger read (after the lock) sees what the caller
 * before us committed.
 */
async function migrateStep(
  client: PoolClient,
  schema: SchemaName,
): Promise<{ before: number; applied: Migration | undefined }> {
  await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, schemaLockKey(schema.name)]);
    // Under the lock, so two callers on a fresh database cannot race on CREATE SCHEMA.
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema.quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema.quoted}.schema_migrations (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         checksum   text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const recorded = await readLedger(client, schema);
    assertChecksums(recorded, schema);
    const next = MIGRATIONS.find((migration) => !recorded.has(migration.version));
    if (next) await applyMigration(client, schema, next);
    await client.query('COMMIT');
    return { before: Math.max(0, ...recorded.keys()), applied: next };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function readLedger(client: PoolClient, schema: SchemaName): Promise<Map<number, string>> {
  const { rows } = await client.query<{ version: number; checksum: string }>(
    `SELECT version, checksum FROM ${schema.quoted}.schema_migrations ORDER BY version`,
  );
  return new Map(rows.map((row) => [row.version, row.checksum]));
}

function assertChecksums(recorded: Map<number, string>, schema: SchemaName): void {
  for (const migration of MIGRATIONS) {
    const checksum = recorded.get(migration.version);
    if (checksum !== undefined && checksum !== migrationChecksum(migration)) {
      throw new WebhookError(
        'store_error',
        `@svc/webhooks-pg: migration ${migration.version} (${migration.name}) recorded in ` +
          `"${schema.name}".schema_migrations differs from the one this release ships. Released migrations ` +
          'must never change: restore the original migration, or install the release that recorded it.',
        { details: { schema: schema.name, version: migration.version } },
      );
    }
  }
}

async function applyMigration(client: PoolClient, schema: SchemaName, migration: Migration): Promise<void> {
  try {
    await lockMigrationTables(client, schema, migration);
    await client.query(renderMigration(migration, schema.quoted));
  } catch (error) {
    throw lockWaitError(error, schema, migration);
  }
  await client.query(
    `INSERT INTO ${schema.quoted}.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`,
    [migration.version, migration.name, migrationChecksum(migration)],
  );
}

/** 32-bit FNV-1a of the schema name, as a signed int4 (the advisory lock's second key). */
export function schemaLockKey(name: string): number {
  let hash = 0x81_1c_9d_c5;
  for (const byte of new TextEncoder().encode(name)) {
    hash = Math.imul(hash ^ byte, 0x01_00_01_93);
  }
  return hash | 0;
}
