import { DELIVERY_COLUMNS } from './delivery-row';
import type { SchemaName } from './schema-name';
import { type Statement, statement } from './statement';

/** The store's SQL on the deliveries table of one schema. */
export interface DeliveryStatements {
  insert: Statement;
  selectByEvent: Statement;
  get: Statement;
  list: Statement;
  listBefore: Statement;
  listByStatus: Statement;
  listByStatusBefore: Statement;
  compareAndSet: Statement;
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
    compareAndSet: statement(
      `UPDATE ${table}
          SET status = $4, attempt = $5, max_attempts = $6, next_retry_at = $7, last_attempt_at = $8,
              delivered_at = $9, last_response_code = $10, last_error_message = $11, last_response_excerpt = $12
        WHERE id = $1 AND attempt = $2 AND status = $3
        RETURNING ${DELIVERY_COLUMNS}`,
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
