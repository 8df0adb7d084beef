import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/** The queue's SQL on the deliveries table of one schema, apart from the claim (see claim-statements). */
export interface QueueStatements {
  enqueue: Statement;
  enqueueMissing: Statement;
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
    // A row without run_at has no entry (a claimed row keeps its run_at): only those get one.
    enqueueMissing: statement(
      `UPDATE ${table} AS d SET run_at = v.run_at
         FROM unnest($1::text[], $2::bigint[]) AS v (id, run_at)
        WHERE d.id = v.id AND d.run_at IS NULL`,
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

/** The NOTIFY channel of a schema (the migration's trigger uses the same form). */
export function wakeupChannel(schema: SchemaName): string {
  return `svc_webhooks:${schema.name}`;
}
