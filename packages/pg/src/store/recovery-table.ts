import type { RecoveryRecord, RecoveryStatus, RecoveryUpdate } from '@svc/webhooks-core';
import { toMs } from '../delivery-row';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/*
 * The bulk recoveries' table of one schema: its row as node-postgres returns it,
 * the record that row holds, and the store's SQL on it.
 */

/** A recovery row as node-postgres returns it (bigint as string). */
export interface RecoveryRow {
  id: string;
  agency_id: string;
  status: string;
  since: string;
  until: string;
  event_types: string[] | null;
  matched: number;
  replayed: number;
  cursor_type_index: number;
  cursor_id: string | null;
  page_end_id: string | null;
  lease_until: string | null;
  created_at: string;
  completed_at: string | null;
  version: number;
}

/** The record a row holds. */
export function toRecoveryRecord(row: RecoveryRow): RecoveryRecord {
  return {
    id: row.id,
    agencyId: row.agency_id,
    status: row.status as RecoveryStatus,
    since: Number(row.since),
    until: Number(row.until),
    eventTypes: row.event_types,
    matched: row.matched,
    replayed: row.replayed,
    cursorTypeIndex: row.cursor_type_index,
    cursorId: row.cursor_id,
    pageEndId: row.page_end_id,
    leaseUntil: toMs(row.lease_until),
    createdAt: Number(row.created_at),
    completedAt: toMs(row.completed_at),
    version: row.version,
  };
}

/** The store's SQL on the recoveries table of one schema. */
export interface RecoveryStatements {
  create: Statement;
  running: Statement;
  get: Statement;
  update: Statement;
  listRunning: Statement;
  /** An agency's first page, newest first. */
  listFirstPage: Statement;
  /** An agency's page after a cursor (`beforeId`). */
  listPageBefore: Statement;
  /** Deletes up to $2 finished recoveries whose `completed_at` is before $1, oldest first. */
  purgeBatch: Statement;
}

/** The recovery table's columns, in the order of {@link RecoveryRow}. */
export const RECOVERY_COLUMNS =
  'id, agency_id, status, since, until, event_types, matched, replayed, cursor_type_index, cursor_id, ' +
  'page_end_id, lease_until, created_at, completed_at, version';

/** Parameters $1..$15 of `create`: the record in column order. */
export function recoveryParams(record: RecoveryRecord): unknown[] {
  return [
    record.id,
    record.agencyId,
    record.status,
    record.since,
    record.until,
    record.eventTypes,
    record.matched,
    record.replayed,
    record.cursorTypeIndex,
    record.cursorId,
    record.pageEndId,
    record.leaseUntil,
    record.createdAt,
    record.completedAt,
    record.version,
  ];
}

/**
 * Parameters of `update`: the id, the expected version, then one (given, value)
 * pair per field, so a field left out of the update keeps its stored value
 * (null is a value to write, not "unchanged").
 */
export function recoveryUpdateParams(
  recoveryId: string,
  expectedVersion: number,
  update: RecoveryUpdate,
): unknown[] {
  const pair = <T>(value: T | undefined): [boolean, T | null] => [value !== undefined, value ?? null];
  return [
    recoveryId,
    expectedVersion,
    ...pair(update.status),
    ...pair(update.replayed),
    ...pair(update.cursorTypeIndex),
    ...pair(update.cursorId),
    ...pair(update.pageEndId),
    ...pair(update.leaseUntil),
    ...pair(update.completedAt),
  ];
}

/** Builds the statements for a schema. */
export function recoveryStatements(schema: SchemaName): RecoveryStatements {
  const table = `${schema.quoted}.webhook_recoveries`;
  const set = (column: string, given: number, value: number, type: string) =>
    `${column} = CASE WHEN $${given}::boolean THEN $${value}::${type} ELSE ${column} END`;
  return {
    // The partial unique index on running recoveries' agency turns a second
    // running one into a conflict that writes nothing and returns no row.
    create: statement(
      `INSERT INTO ${table} (${RECOVERY_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (agency_id) WHERE status = 'running' DO NOTHING
       RETURNING ${RECOVERY_COLUMNS}`,
    ),
    running: statement(
      `SELECT ${RECOVERY_COLUMNS} FROM ${table} WHERE agency_id = $1 AND status = 'running'`,
    ),
    get: statement(`SELECT ${RECOVERY_COLUMNS} FROM ${table} WHERE id = $1`),
    update: statement(
      `UPDATE ${table}
          SET ${set('status', 3, 4, 'text')},
              ${set('replayed', 5, 6, 'integer')},
              ${set('cursor_type_index', 7, 8, 'integer')},
              ${set('cursor_id', 9, 10, 'text')},
              ${set('page_end_id', 11, 12, 'text')},
              ${set('lease_until', 13, 14, 'bigint')},
              ${set('completed_at', 15, 16, 'bigint')},
              version = version + 1
        WHERE id = $1 AND version = $2
       RETURNING ${RECOVERY_COLUMNS}`,
    ),
    listRunning: statement(
      `SELECT ${RECOVERY_COLUMNS} FROM ${table}
        WHERE status = 'running'
        ORDER BY created_at, id
        LIMIT $1`,
    ),
    // Two statements rather than one with `($3 IS NULL OR id < $3)`: a prepared
    // statement's generic plan could only filter on that, reading every newer entry
    // of the agency, where a plain `id < $3` bounds the scan of version 8's index.
    listFirstPage: statement(
      `SELECT ${RECOVERY_COLUMNS} FROM ${table} WHERE agency_id = $1 ORDER BY id DESC LIMIT $2`,
    ),
    listPageBefore: statement(
      `SELECT ${RECOVERY_COLUMNS} FROM ${table}
        WHERE agency_id = $1 AND id < $3
        ORDER BY id DESC
        LIMIT $2`,
    ),
    // The status a literal, so the planner proves version 10's partial index applies
    // even to a generic plan, and walks it from the oldest finish. SKIP LOCKED: purges
    // of several workers split the rows; a row a walker is writing is left for the next round.
    // `= ANY (ARRAY(…))` rather than `IN (…)`: the ids are collected first, then deleted
    // through the primary key. With `IN`, the planner joined the batch to a sequential
    // scan of the whole table on a table of 12,000 recoveries (the plan test), a read
    // of every row per batch on a table this small enough to look cheap.
    purgeBatch: statement(
      `DELETE FROM ${table} WHERE id = ANY (ARRAY(
         SELECT id FROM ${table}
          WHERE status <> 'running' AND completed_at < $1
          ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED))`,
    ),
  };
}
