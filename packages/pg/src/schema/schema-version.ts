import { SchemaNotMigratedError } from '@svc/webhooks-core';
import type { Pool } from 'pg';
import { requirePool } from '../queryable';
import { SCHEMA_VERSION } from './migration-list';
import { parseSchemaName, type SchemaName } from './schema-name';

/** Options of {@link getSchemaVersion}. */
export interface SchemaVersionOptions {
  /**
   * The host's node-postgres pool. Never ended by this package.
   * @example getSchemaVersion({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) })
   */
  pool: Pool;
  /**
   * Schema holding the tables, as passed to {@link migrate}.
   * @default 'webhooks'
   */
  schema?: string;
}

/** PostgreSQL error codes meaning "that schema or table does not exist". */
const MISSING_RELATION_CODES = new Set(['42P01', '3F000']);

/**
 * The schema version recorded by {@link migrate} (0 when never migrated), e.g. for
 * a health check or a deploy step that must not start workers on an old schema.
 *
 * @throws InvalidOptionError (`invalid_option`) when `pool` is missing or `schema` is not a plain identifier
 * @example
 * ```ts
 * if ((await getSchemaVersion({ pool })) < SCHEMA_VERSION) await migrate({ pool });
 * ```
 */
export async function getSchemaVersion(options: SchemaVersionOptions): Promise<number> {
  const pool = requirePool(options, 'getSchemaVersion');
  return readSchemaVersion(pool, parseSchemaName(options.schema));
}

/**
 * Reads the schema's recorded version (0 when the ledger is missing).
 * Always runs on the pool, never on a host transaction client: a failed
 * statement there would abort the host's whole transaction.
 */
export async function readSchemaVersion(pool: Pool, schema: SchemaName): Promise<number> {
  try {
    const { rows } = await pool.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${schema.quoted}.schema_migrations`,
    );
    return rows[0]?.version ?? 0;
  } catch (error) {
    if (MISSING_RELATION_CODES.has((error as { code?: string }).code ?? '')) return 0;
    throw error;
  }
}

/**
 * Resolves once the schema is known to be at least {@link SCHEMA_VERSION}.
 * Success is remembered for the adapter's lifetime; a failure is not, so the
 * adapter starts working as soon as someone runs migrate().
 */
export function createSchemaCheck(pool: Pool, schema: SchemaName): () => Promise<void> {
  let verified: Promise<void> | null = null;
  return () => {
    verified ??= assertMigrated(pool, schema).catch((error: unknown) => {
      verified = null;
      throw error;
    });
    return verified;
  };
}

async function assertMigrated(pool: Pool, schema: SchemaName): Promise<void> {
  const version = await readSchemaVersion(pool, schema);
  if (version < SCHEMA_VERSION) {
    throw new SchemaNotMigratedError(
      `@svc/webhooks-pg: PostgreSQL schema "${schema.name}" is at version ${version} but this release needs ` +
        `version ${SCHEMA_VERSION}: run migrate({ pool, schema: '${schema.name}' }) first.`,
    );
  }
}
