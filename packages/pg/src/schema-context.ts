import { setNewest } from '@svc/webhooks-core/adapter-kit';
import type { Pool } from 'pg';
import { detectPooler, isPooled } from './connection-kind';
import { ClaimLedger } from './queue/claim-ledger';
import type { SchemaName } from './schema/schema-name';
import { createSchemaCheck } from './schema/schema-version';

/** Most fresh inserts remembered per schema; past it the oldest is forgotten. */
const FRESH_ENTRIES_CAPACITY = 10_000;

/**
 * State shared by every store and queue built on the same pool and schema, so
 * that `createPgStore` and `createPgQueue` made separately still cooperate (the
 * emit fast path, the claim ledger) and the schema version is checked once.
 */
export interface SchemaContext {
  /**
   * Resolves once the schema is migrated and the pool's kind (direct or through
   * a pooler) is known; every statement of the adapters waits for it first.
   */
  ensureMigrated: () => Promise<void>;
  /**
   * Whether to send hot statements named (prepared): the host's
   * `preparedStatements` when given, otherwise only on a direct connection,
   * since a transaction pooler hands each transaction a server connection that
   * may not hold the statement, or holds another client's under the same name.
   */
  prepared: (option: boolean | undefined) => boolean;
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
    const schemaCheck = createSchemaCheck(pool, schema);
    context = {
      async ensureMigrated() {
        await schemaCheck();
        if (isPooled(pool) === undefined) await detectPooler(pool);
      },
      prepared: (option) => option ?? isPooled(pool) === false,
      fresh: new FreshEntries(FRESH_ENTRIES_CAPACITY),
      claims: new ClaimLedger(),
    };
    bySchema.set(schema.name, context);
  }
  return context;
}

/**
 * Remembers deliveries the store has just inserted as already due, so the
 * queue's enqueue that follows (emit always does insert, then enqueue, with the
 * same options) can skip its UPDATE: an emit is one round trip.
 *
 * Skipping is also what keeps the fresh row's first claim intact: a worker woken
 * by the insert's NOTIFY may claim the row before the emitting process calls
 * enqueue, and an UPDATE would then drop that worker's live claim and let a
 * second worker send the same attempt.
 *
 * Bounded: once full the oldest entry is forgotten, and its enqueue simply runs
 * the UPDATE (correct, one round trip slower).
 */
export class FreshEntries {
  readonly #entries = new Map<string, { runAt: number; transaction: unknown }>();

  constructor(private readonly capacity: number) {}

  /** Records that `deliveryId` was inserted due at `runAt` (on `transaction`, if any). */
  remember(deliveryId: string, runAt: number, transaction: unknown): void {
    setNewest(this.#entries, deliveryId, { runAt, transaction }, this.capacity);
  }

  /**
   * True (and forgets the entry) when the row is already due at exactly `runAt`
   * through the same transaction (or both without one): the enqueue is a no-op.
   */
  take(deliveryId: string, runAt: number, transaction: unknown): boolean {
    const entry = this.#entries.get(deliveryId);
    if (!entry) return false;
    this.#entries.delete(deliveryId);
    return entry.runAt === runAt && entry.transaction === transaction;
  }
}
