import type { Pool } from 'pg';
import { ClaimLedger } from './claim-ledger';
import { FreshEntries } from './fresh-entries';
import { createSchemaCheck } from './schema-check';
import type { SchemaName } from './schema-name';

/**
 * State shared by every store and queue built on the same pool and schema, so
 * that `createPgStore` and `createPgQueue` made separately still cooperate (the
 * emit fast path, the claim ledger) and the schema version is checked once.
 */
export interface SchemaContext {
  ensureMigrated: () => Promise<void>;
  fresh: FreshEntries;
  claims: ClaimLedger;
}

const contexts = new WeakMap<Pool, Map<string, SchemaContext>>();

/** The shared context of `pool` and `schema` (made on first use). */
export function schemaContext(pool: Pool, schema: SchemaName): SchemaContext {
  let bySchema = contexts.get(pool);
  if (!bySchema) {
    bySchema = new Map();
    contexts.set(pool, bySchema);
  }
  let context = bySchema.get(schema.name);
  if (!context) {
    context = {
      ensureMigrated: createSchemaCheck(pool, schema),
      fresh: new FreshEntries(),
      claims: new ClaimLedger(),
    };
    bySchema.set(schema.name, context);
  }
  return context;
}
