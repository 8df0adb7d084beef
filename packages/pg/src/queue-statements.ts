import { DELIVERY_COLUMNS } from './delivery-row';
import type { SchemaName } from './schema-name';
import { type Statement, statement } from './statement';

/** The queue's SQL on the deliveries table of one schema. */
export interface QueueStatements {
  enqueue: Statement;
  claim: Statement;
  renew: Statement;
  ack: Statement;
  reschedule: Statement;
  nextClaimableAt: Statement;
}

/**
 * When a row may next be claimed: its `run_at`, or the end of the current lease
 * while one is set (so an expired lease makes the row claimable again). The
 * partial expression index `webhook_deliveries_claimable_idx` is on exactly this.
 */
const CLAIMABLE_AT = 'COALESCE(lease_until, run_at)';

/** Builds the statements for a schema. */
export function queueStatements(schema: SchemaName): QueueStatements {
  const table = `${schema.quoted}.webhook_deliveries`;
  return {
    enqueue: statement(`UPDATE ${table} SET run_at = $2, claim_id = NULL, lease_until = NULL WHERE id = $1`),
    // SKIP LOCKED lets concurrent claimers take disjoint rows instead of queueing
    // on the same ones; the range scan on the claimable index stops after `limit`
    // rows, and rows leased by others sort past `now`, so they are never visited.
    claim: statement(
      `WITH due AS (
         SELECT id FROM ${table}
          WHERE run_at IS NOT NULL AND ${CLAIMABLE_AT} <= $1 AND agency_id <> ALL ($3::text[])
          ORDER BY ${CLAIMABLE_AT}
          LIMIT $2
          FOR UPDATE SKIP LOCKED
       )
       UPDATE ${table} AS d
          SET claim_id = gen_random_uuid()::text, lease_until = $1 + $4
         FROM due
        WHERE d.id = due.id
       RETURNING ${qualified('d', DELIVERY_COLUMNS)}, d.claim_id, d.run_at, d.lease_until`,
    ),
    renew: statement(`UPDATE ${table} SET lease_until = $3 WHERE id = $1 AND claim_id = $2`),
    ack: statement(
      `UPDATE ${table} SET run_at = NULL, claim_id = NULL, lease_until = NULL WHERE id = $1 AND claim_id = $2`,
    ),
    reschedule: statement(
      `UPDATE ${table} SET run_at = $3, claim_id = NULL, lease_until = NULL WHERE id = $1 AND claim_id = $2`,
    ),
    nextClaimableAt: statement(
      `SELECT ${CLAIMABLE_AT} AS at FROM ${table}
        WHERE run_at IS NOT NULL AND ${CLAIMABLE_AT} > $1
        ORDER BY ${CLAIMABLE_AT} LIMIT 1`,
    ),
  };
}

/** `a, b` → `d.a, d.b` */
function qualified(alias: string, columns: string): string {
  return columns
    .split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');
}

/** The NOTIFY channel of a schema (the migration's trigger uses the same form). */
export function wakeupChannel(schema: SchemaName): string {
  return `svc_webhooks:${schema.name}`;
}
