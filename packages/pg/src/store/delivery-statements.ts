import { DELIVERY_COLUMNS } from '../delivery-row';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/** The store's SQL on the deliveries table of one schema. */
export interface DeliveryStatements {
  insert: Statement;
  selectByEvent: Statement;
  get: Statement;
  compareAndSetMany: Statement;
  listDuePending: Statement;
  /** Per finished status: deletes up to $2 rows of it created before $1, oldest first. */
  purgeBatch: Record<'success' | 'failed', Statement>;
}

const INSERT_COLUMNS = `${DELIVERY_COLUMNS}, run_at`;
const INSERT_VALUES = Array.from({ length: 23 }, (_, index) =>
  index === 9 ? '$10::json' : `$${index + 1}`,
).join(', ');

/** Builds the statements for a schema. */
export function deliveryStatements(schema: SchemaName): DeliveryStatements {
  const table = `${schema.quoted}.webhook_deliveries`;
  const attempts = `${schema.quoted}.webhook_attempts`;
  return {
    // One round trip for both outcomes: the insert, or (on a duplicate event) the
    // delivery already stored. The second branch's snapshot cannot see the row
    // the first branch inserted, hence the NOT EXISTS instead of a plain union.
    insert: statement(
      `WITH inserted AS (
         INSERT INTO ${table} (${INSERT_COLUMNS}) VALUES (${INSERT_VALUES})
         ON CONFLICT (agency_id, event_id) DO NOTHING
         RETURNING ${DELIVERY_COLUMNS}
       )
       SELECT true AS created, ${DELIVERY_COLUMNS} FROM inserted
       UNION ALL
       SELECT false AS created, ${DELIVERY_COLUMNS} FROM ${table}
        WHERE agency_id = $2 AND event_id = $3 AND NOT EXISTS (SELECT 1 FROM inserted)`,
    ),
    selectByEvent: statement(
      `SELECT ${DELIVERY_COLUMNS} FROM ${table} WHERE agency_id = $1 AND event_id = $2`,
    ),
    get: statement(`SELECT ${DELIVERY_COLUMNS} FROM ${table} WHERE id = $1`),
    // Compare-and-set of a batch of deliveries (one array per field, see
    // compareAndSetParams). Each row is written only when its stored attempt and
    // status still match; when it also still carries the claim this process
    // holds (`claim_id`), the same write settles that claim: the queue entry is
    // due again at `settle_run_at`, or removed when that is null. FOR UPDATE in the
    // CTE (in id order, so two batches cannot deadlock) reads the latest version
    // of each row, which makes `settled` exact.
    //
    // The attempt an update records (the a_* columns) is inserted by the same
    // statement, from the rows the UPDATE returned: a row whose compare-and-set
    // failed returns nothing, so its attempt is not recorded, and one that won
    // records it atomically with the update. The primary key (delivery, attempt)
    // keeps the first entry should a counter set back by hand repeat a number.
    compareAndSetMany: statement(
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::bigint[],
                              $8::bigint[], $9::bigint[], $10::int[], $11::text[], $12::text[], $13::text[],
                              $14::bigint[], $15::text[], $16::int[], $17::text[], $18::bigint[], $19::int[],
                              $20::int[], $21::text[], $22::text[], $23::text[])
           AS i(id, expected_attempt, expected_status, status, attempt, max_attempts, next_retry_at,
                last_attempt_at, delivered_at, last_response_code, last_error_message, last_response_excerpt,
                claim_id, settle_run_at, next_attempt_trigger, a_attempt, a_trigger, a_started_at, a_duration_ms,
                a_response_code, a_error_kind, a_error_message, a_response_excerpt)
       ), current AS (
         SELECT d.id, COALESCE(d.claim_id = i.claim_id, false) AS settled
           FROM ${table} AS d
           JOIN input AS i ON d.id = i.id AND d.attempt = i.expected_attempt AND d.status = i.expected_status
          ORDER BY d.id
          FOR UPDATE OF d
       ), updated AS (
         UPDATE ${table} AS d
            SET status = i.status, attempt = i.attempt, max_attempts = i.max_attempts,
                next_retry_at = i.next_retry_at, last_attempt_at = i.last_attempt_at, delivered_at = i.delivered_at,
                last_response_code = i.last_response_code, last_error_message = i.last_error_message,
                last_response_excerpt = i.last_response_excerpt, next_attempt_trigger = i.next_attempt_trigger,
                run_at = CASE WHEN c.settled THEN i.settle_run_at ELSE d.run_at END,
                lease_until = CASE WHEN c.settled THEN NULL ELSE d.lease_until END,
                claim_id = CASE WHEN c.settled THEN NULL ELSE d.claim_id END
           FROM current AS c
           JOIN input AS i ON i.id = c.id
          WHERE d.id = c.id
          RETURNING ${DELIVERY_COLUMNS.split(', ')
            .map((column) => `d.${column}`)
            .join(', ')}, c.settled
       ), recorded AS (
         INSERT INTO ${attempts} (delivery_id, attempt, trigger, started_at, duration_ms, response_code, error_kind,
                                  error_message, response_excerpt)
         SELECT i.id, i.a_attempt, i.a_trigger, i.a_started_at, i.a_duration_ms, i.a_response_code, i.a_error_kind,
                i.a_error_message, i.a_response_excerpt
           FROM updated AS u
           JOIN input AS i ON i.id = u.id
          WHERE i.a_attempt IS NOT NULL
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       )
       SELECT * FROM updated`,
    ),
    // A row a worker holds right now is being attempted, not lost: leaving it out
    // keeps a recovery sweep from pulling the entry out from under that worker.
    listDuePending: statement(
      `SELECT ${DELIVERY_COLUMNS} FROM ${table}
        WHERE status = 'pending' AND next_retry_at <= $1 AND claim_id IS NULL
        ORDER BY next_retry_at LIMIT $2`,
    ),
    purgeBatch: { success: purgeBatch(table, 'success'), failed: purgeBatch(table, 'failed') },
  };
}

/**
 * One status at a time, the status a literal: the planner then proves the
 * partial `finished_idx` applies even to a generic plan, and walks it from the
 * oldest row of that status, so a purge of successes never reads the failed rows
 * a longer retention keeps (migration 0007). SKIP LOCKED: purges running at once
 * in several workers split the rows instead of queueing on each other's locks.
 */
function purgeBatch(table: string, status: 'success' | 'failed'): Statement {
  return statement(
    `DELETE FROM ${table} WHERE id IN (
       SELECT id FROM ${table}
        WHERE status = '${status}' AND created_at < $1
        ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
  );
}
