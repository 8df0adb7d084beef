import { createHash } from 'node:crypto';

/**
 * One step of the schema's history. Released migrations are append-only: never
 * edit one, add the next version instead (migrate() refuses a database whose
 * ledger records a different checksum for a version it ships).
 */
export interface Migration {
  /** 1, 2, 3, … without gaps. */
  version: number;
  /** Short kebab-case description, recorded in the ledger. */
  name: string;
  /** SQL with `{{schema}}` where the quoted schema name goes. Runs in one transaction. */
  sql: string;
  /**
   * The existing tables the SQL takes a lock on, each with the strongest mode it
   * takes there. migrate() takes these locks first, in {@link LOCK_ORDER}, so the
   * migration never upgrades a lock it holds while live traffic waits on it (see
   * docs/postgres.md, "Locks"). Not part of the checksum. Tables the migration
   * creates are left out: nobody else can hold a lock on them.
   */
  locks: readonly TableLock[];
}

/** The tables migrations may lock, in the order migrate() locks them. */
export const LOCK_ORDER = [
  'webhook_deliveries',
  'webhook_attempts',
  'webhook_recoveries',
  'webhook_configs',
  'webhook_circuits',
] as const;

/**
 * A table lock a migration takes up front: `SHARE` for an index build (blocks
 * writes, not reads), `ACCESS EXCLUSIVE` for an ALTER TABLE or a DROP INDEX.
 */
export interface TableLock {
  table: (typeof LOCK_ORDER)[number];
  mode: 'SHARE' | 'ACCESS EXCLUSIVE';
}

/** The migration's SQL for a schema (`quotedSchema` already quoted). */
export function renderMigration(migration: Migration, quotedSchema: string): string {
  return migration.sql.replaceAll('{{schema}}', quotedSchema);
}

/**
 * Checksum of the migration's template (not of the rendered SQL), so the same
 * release records the same checksum whatever the schema is called.
 */
export function migrationChecksum(migration: Migration): string {
  return createHash('sha256').update(migration.sql).digest('hex');
}
