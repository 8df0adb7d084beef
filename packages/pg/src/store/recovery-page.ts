import type { RecoveryPageOptions, RecoveryPageReplay, RecoveryRecord } from '@svc/webhooks-core';
import { cursorEventType } from '@svc/webhooks-core/adapter-kit';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';
import { RECOVERY_COLUMNS, type RecoveryRow, toRecoveryRecord } from './recovery-table';

/*
 * A bulk recovery's page, opened and replayed in one statement: the page's ids
 * are found as the delivery list finds them (the same conditions, so the same
 * index), locked in id order (as the compare-and-sets lock theirs, so the two
 * cannot deadlock), made pending as core's `replayUpdate` makes them, and the
 * recovery row gets the page's end. No delivery row travels to the worker.
 *
 * Read committed: a delivery that changed while the page waited for its lock
 * is checked again on its newest version (`status = 'failed'`) and left out,
 * as a compare-and-set would have lost on it.
 *
 * The row is its queue entry (`run_at`), so the same update gives each replay
 * one where it has none, exactly what the walker's `enqueueMissing` would do
 * next (which then finds nothing to add): one new row version per replay
 * instead of two, each of which writes every index of the table.
 */

/** The replay's statement of each shape: with or without an event type, and a cursor. */
export type RecoveryPagePicker = (
  recovery: RecoveryRecord,
  page: RecoveryPageOptions,
) => [Statement, unknown[]];

/** What the statement answers: the opened recovery's columns (null when nothing was opened), and more. */
export type RecoveryPageRow = { [Column in keyof RecoveryRow]: RecoveryRow[Column] | null } & {
  found: boolean;
  replayed_ids: string[];
};

/** Builds the statements of a schema, one per shape, on first use. */
export function recoveryPageStatements(schema: SchemaName): RecoveryPagePicker {
  const deliveries = `${schema.quoted}.webhook_deliveries`;
  const recoveries = `${schema.quoted}.webhook_recoveries`;
  const built = new Map<string, Statement>();
  const build = (typed: boolean, after: boolean): Statement => {
    // $1 recovery, $2 version, $3 agency, $4 since, $5 until, $6 limit, $7 now, $8 lease, then type, cursor.
    const conditions = ['agency_id = $3', "status = 'failed'", 'created_at >= $4', 'created_at < $5'];
    if (typed) conditions.push('event_type = $9');
    if (after) conditions.push(`id < $${typed ? 10 : 9}`);
    return statement(
      `WITH recovery AS (
         SELECT id FROM ${recoveries} WHERE id = $1 AND version = $2 FOR UPDATE
       ), candidates AS (
         SELECT id FROM ${deliveries}
          WHERE EXISTS (SELECT 1 FROM recovery) AND ${conditions.join(' AND ')}
          ORDER BY id DESC LIMIT $6
       ), page AS (
         SELECT d.id FROM ${deliveries} AS d JOIN candidates AS c ON c.id = d.id
          WHERE d.status = 'failed'
          ORDER BY d.id
          FOR UPDATE OF d
       ), replayed AS (
         UPDATE ${deliveries} AS d
            SET status = 'pending', max_attempts = d.attempt + 1, next_retry_at = $7,
                next_attempt_trigger = 'recovery', run_at = COALESCE(d.run_at, $7)
           FROM page WHERE d.id = page.id
         RETURNING d.id
       ), opened AS (
         UPDATE ${recoveries}
            SET page_end_id = (SELECT min(id) FROM candidates), lease_until = $8, version = version + 1
          WHERE id = $1 AND version = $2 AND EXISTS (SELECT 1 FROM candidates)
         RETURNING ${RECOVERY_COLUMNS}
       )
       SELECT opened.*, EXISTS (SELECT 1 FROM recovery) AS found,
              ARRAY(SELECT id FROM replayed ORDER BY id DESC) AS replayed_ids
         FROM (SELECT 1) AS one LEFT JOIN opened ON true`,
    );
  };
  return (recovery, page) => {
    const eventType = cursorEventType(recovery);
    const shape = `${eventType !== undefined}/${recovery.cursorId !== null}`;
    let stmt = built.get(shape);
    if (!stmt) {
      stmt = build(eventType !== undefined, recovery.cursorId !== null);
      built.set(shape, stmt);
    }
    const values: unknown[] = [
      recovery.id,
      recovery.version,
      recovery.agencyId,
      recovery.since,
      recovery.until,
      page.limit,
      page.now,
      page.leaseUntil,
    ];
    if (eventType !== undefined) values.push(eventType);
    if (recovery.cursorId !== null) values.push(recovery.cursorId);
    return [stmt, values];
  };
}

/** The store's answer from the statement's one row. */
export function toRecoveryPageReplay(
  recovery: RecoveryRecord,
  row: RecoveryPageRow | undefined,
): RecoveryPageReplay | null {
  if (!row?.found) return null;
  if (row.id === null) return { recovery, replayedIds: [] };
  return { recovery: toRecoveryRecord(row as RecoveryRow), replayedIds: row.replayed_ids };
}
