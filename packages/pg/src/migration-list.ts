import type { Migration } from './migration';
import { createTables } from './migrations/0001-create-tables';

/**
 * Every migration this release ships, in order. The SQL lives in TypeScript
 * string modules rather than `.sql` files so it survives any bundling (ESM, CJS,
 * a host that bundles its server) without file-system lookups at run time.
 */
export const MIGRATIONS: readonly Migration[] = [createTables];

/** The schema version the adapters of this release need (the latest migration). */
export const SCHEMA_VERSION: number = MIGRATIONS.length;
