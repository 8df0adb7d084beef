import { DELIVERY_COLUMNS } from '../delivery-row';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/** The queue's SQL on the deliveries table of one schema. */
export interface QueueStatements {
  enqueue: Statement;
  claim: Statement;
  renew: Statement;
  ack: Statement;
  reschedule: Statement;
  nextClaimableAt: Statement;
}

/** Builds the statements for a schema. */
export function queueStatements(schema: SchemaName): QueueStatements {
  const table = `${schema.quoted}.webhook_deliveries`;
  return {
    enqueue: statement(`UPDATE ${table} SET run_at = $2, claim_id = NULL, lease_until = NULL WHERE id = $1`),
    // A row is claimable when due and not under a live lease (an expired lease
    // counts as none). The range scan on the partial index `webhook_deliveries_due_idx`
    // stops after `limit` claimable rows; rows leased right now are stepped over
    // (at most the number of attempts in flight). SKIP LOCKED lets concurrent
    // claimers take disjoint rows instead of waiting on each other.
    //
    // The claim writes only `claim_id` and `lease_until`, which no index covers,
    // so (with the table's fillfactor leaving room on the page) it is a HOT
    // update: no index entries to add, about half the WAL of touching run_at.
    claim: statement(
      `WITH due AS (
         SELECT id FROM ${table}
          WHERE run_at <= $1 AND (lease_until IS NULL OR lease_until <= $1) AND agency_id <> ALL ($3::text[])
          ORDER BY run_at
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
    // The earliest future due time, or the end of the earliest live lease.
    nextClaimableAt: statement(
      `SELECT LEAST(
         (SELECT min(run_at) FROM ${table} WHERE run_at > $1),
         (SELECT min(lease_until) FROM ${table} WHERE run_at <= $1 AND lease_until > $1)) AS at`,
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
