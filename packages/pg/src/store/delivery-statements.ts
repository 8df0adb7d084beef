import { DELIVERY_COLUMNS } from '../delivery-row';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/** The store's SQL on the deliveries table of one schema. */
export interface DeliveryStatements {
  insert: Statement;
  selectByEvent: Statement;
  get: Statement;
  list: Statement;
  listBefore: Statement;
  listByStatus: Statement;
  listByStatusBefore: Statement;
  compareAndSetMany: Statement;
  listDuePending: Statement;
  purgeBatch: Statement;
}

const INSERT_COLUMNS = `${DELIVERY_COLUMNS}, run_at`;
const INSERT_VALUES = Array.from({ length: 22 }, (_, index) =>
  index === 9 ? '$10::json' : `$${index + 1}`,
).join(', ');

/** Builds the statements for a schema. */
export function deliveryStatements(schema: SchemaName): DeliveryStatements {
  const table = `${schema.quoted}.webhook_deliveries`;
  const list = (where: string) =>
    statement(`SELECT ${DELIVERY_COLUMNS} FROM ${table} WHERE ${where} ORDER BY id DESC LIMIT $2`);
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
    list: list('agency_id = $1'),
    listBefore: list('agency_id = $1 AND id < $3'),
    listByStatus: list('agency_id = $1 AND status = $3'),
    listByStatusBefore: list('agency_id = $1 AND status = $3 AND id < $4'),
    // Compare-and-set of a batch of deliveries (one array per field, see
    // compareAndSetParams). Each row is written only when its stored attempt and
    // status still match; when it also still carries the claim this process
    // holds (`claim_id`), the same write settles that claim: the queue entry is
    // due again at `settle_run_at`, or removed when that is null. FOR UPDATE in the
    // CTE (in id order, so two batches cannot deadlock) reads the latest version
    // of each row, which makes `settled` exact.
    compareAndSetMany: statement(
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::bigint[],
                              $8::bigint[], $9::bigint[], $10::int[], $11::text[], $12::text[], $13::text[],
                              $14::bigint[])
           AS i(id, expected_attempt, expected_status, status, attempt, max_attempts, next_retry_at,
                last_attempt_at, delivered_at, last_response_code, last_error_message, last_response_excerpt,
                claim_id, settle_run_at)
       ), current AS (
         SELECT d.id, COALESCE(d.claim_id = i.claim_id, false) AS settled
           FROM ${table} AS d
           JOIN input AS i ON d.id = i.id AND d.attempt = i.expected_attempt AND d.status = i.expected_status
          ORDER BY d.id
          FOR UPDATE OF d
       )
       UPDATE ${table} AS d
          SET status = i.status, attempt = i.attempt, max_attempts = i.max_attempts,
              next_retry_at = i.next_retry_at, last_attempt_at = i.last_attempt_at, delivered_at = i.delivered_at,
              last_response_code = i.last_response_code, last_error_message = i.last_error_message,
              last_response_excerpt = i.last_response_excerpt,
              run_at = CASE WHEN c.settled THEN i.settle_run_at ELSE d.run_at END,
              lease_until = CASE WHEN c.settled THEN NULL ELSE d.lease_until END,
              claim_id = CASE WHEN c.settled THEN NULL ELSE d.claim_id END
         FROM current AS c
         JOIN input AS i ON i.id = c.id
        WHERE d.id = c.id
        RETURNING ${DELIVERY_COLUMNS.split(', ')
          .map((column) => `d.${column}`)
          .join(', ')}, c.settled`,
    ),
    // A row a worker holds right now is being attempted, not lost: leaving it out
    // keeps a recovery sweep from pulling the entry out from under that worker.
    listDuePending: statement(
      `SELECT ${DELIVERY_COLUMNS} FROM ${table}
        WHERE status = 'pending' AND next_retry_at <= $1 AND claim_id IS NULL
        ORDER BY next_retry_at LIMIT $2`,
    ),
    purgeBatch: statement(
      `DELETE FROM ${table} WHERE id IN (
         SELECT id FROM ${table}
          WHERE created_at < $1 AND status <> 'pending'
          LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    ),
  };
}
