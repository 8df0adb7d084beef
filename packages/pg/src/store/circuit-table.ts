import type { CircuitRecord, CircuitState, CircuitStatus } from '@svc/webhooks-core';
import { toMs } from '../delivery-row';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/*
 * The circuit breakers' table of one schema: its row as node-postgres returns
 * it, the record that row holds, and the store's SQL on it.
 */

/** A circuit row as node-postgres returns it (bigint as string). */
export interface CircuitRow {
  agency_id: string;
  status: string;
  consecutive_failures: number;
  failing_since: string | null;
  last_failure_at: string | null;
  last_success_at: string | null;
  opened_at: string | null;
  open_until: string | null;
  openings: number;
  unsuccessful_attempts: number;
  unsuccessful_since: string | null;
  version: number;
}

/** The record a row holds. */
export function toCircuitRecord(row: CircuitRow): CircuitRecord {
  return {
    agencyId: row.agency_id,
    status: row.status as CircuitStatus,
    consecutiveFailures: row.consecutive_failures,
    failingSince: toMs(row.failing_since),
    lastFailureAt: toMs(row.last_failure_at),
    lastSuccessAt: toMs(row.last_success_at),
    openedAt: toMs(row.opened_at),
    openUntil: toMs(row.open_until),
    openings: row.openings,
    unsuccessfulAttempts: row.unsuccessful_attempts,
    unsuccessfulSince: toMs(row.unsuccessful_since),
    version: row.version,
  };
}

/** The store's SQL on the circuits table of one schema. */
export interface CircuitStatements {
  getMany: Statement;
  create: Statement;
  update: Statement;
}

const CIRCUIT_COLUMNS =
  'agency_id, status, consecutive_failures, failing_since, last_failure_at, last_success_at, opened_at, ' +
  'open_until, openings, unsuccessful_attempts, unsuccessful_since, version';

/** Parameters $1..$11 of `create` and `update`: the agency, then the state in column order. */
export function circuitParams(agencyId: string, state: CircuitState): unknown[] {
  return [
    agencyId,
    state.status,
    state.consecutiveFailures,
    state.failingSince,
    state.lastFailureAt,
    state.lastSuccessAt,
    state.openedAt,
    state.openUntil,
    state.openings,
    state.unsuccessfulAttempts,
    state.unsuccessfulSince,
  ];
}

/** Builds the statements for a schema. */
export function circuitStatements(schema: SchemaName): CircuitStatements {
  const table = `${schema.quoted}.webhook_circuits`;
  return {
    getMany: statement(`SELECT ${CIRCUIT_COLUMNS} FROM ${table} WHERE agency_id = ANY ($1::text[])`),
    // The compare-and-set of a breaker never written: of concurrent creators, the
    // first insert wins and the others meet the primary key and return no row.
    create: statement(
      `INSERT INTO ${table} (${CIRCUIT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1)
       ON CONFLICT (agency_id) DO NOTHING
       RETURNING ${CIRCUIT_COLUMNS}`,
    ),
    // Concurrent writers with the same expected version queue on the row lock;
    // each one after the first re-checks `version` against the row the first
    // wrote, no longer matches, and updates nothing.
    update: statement(
      `UPDATE ${table}
          SET status = $2, consecutive_failures = $3, failing_since = $4, last_failure_at = $5,
              last_success_at = $6, opened_at = $7, open_until = $8, openings = $9,
              unsuccessful_attempts = $10, unsuccessful_since = $11, version = version + 1
        WHERE agency_id = $1 AND version = $12
       RETURNING ${CIRCUIT_COLUMNS}`,
    ),
  };
}
