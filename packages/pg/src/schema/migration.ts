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
