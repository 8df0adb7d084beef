import { WebhookError } from '@svc/webhooks-core';
import type { Pool, PoolClient } from 'pg';
import { requirePool } from '../queryable';
import { type Migration, migrationChecksum, renderMigration } from './migration';
import { MIGRATIONS } from './migration-list';
import { parseSchemaName, type SchemaName } from './schema-name';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /**
   * The host's node-postgres pool. One of its connections holds the migration
   * lock while `migrate` runs; the pool is never ended.
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
 * Safe when many processes start at once: everything runs under a session
 * advisory lock keyed by the schema name, so one process migrates while the
 * others wait, then find nothing left to do. Idempotent. Never ends the pool.
 *
 * @throws InvalidOptionError (`invalid_option`) when `pool` is missing or
 *   `schema` is not a plain identifier, before anything touches the database
 * @throws WebhookError (`store_error`) when the ledger records a different
 *   checksum for a shipped version (a released migration was edited)
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
    await client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, schemaLockKey(schema.name)]);
    try {
      return await migrateLocked(client, schema);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, schemaLockKey(schema.name)]);
    }
  } catch (error) {
    broken = error instanceof Error ? error : true;
    throw error;
  } finally {
    // A connection that failed mid-migration may still hold the lock or an open
    // transaction: destroy it rather than hand it back to the host's pool.
    client.release(broken);
  }
}

async function migrateLocked(client: PoolClient, schema: SchemaName): Promise<MigrateResult> {
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
  const fromVersion = Math.max(0, ...recorded.keys());
  const applied: MigrateResult['applied'] = [];
  for (const migration of MIGRATIONS) {
    if (recorded.has(migration.version)) continue;
    await applyMigration(client, schema, migration);
    applied.push({ version: migration.version, name: migration.name });
  }
  const toVersion = Math.max(fromVersion, ...applied.map((step) => step.version));
  return { schema: schema.name, fromVersion, toVersion, applied };
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
  await client.query('BEGIN');
  try {
    await client.query(renderMigration(migration, schema.quoted));
    await client.query(
      `INSERT INTO ${schema.quoted}.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`,
      [migration.version, migration.name, migrationChecksum(migration)],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** 32-bit FNV-1a of the schema name, as a signed int4 (the advisory lock's second key). */
export function schemaLockKey(name: string): number {
  let hash = 0x81_1c_9d_c5;
  for (const byte of new TextEncoder().encode(name)) {
    hash = Math.imul(hash ^ byte, 0x01_00_01_93);
  }
  return hash | 0;
}
