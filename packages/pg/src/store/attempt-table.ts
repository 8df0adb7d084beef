import type { AttemptErrorKind, AttemptRecord, AttemptTrigger } from '@svc/webhooks-core';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/*
 * The attempt history's table of one schema: its row as node-postgres returns
 * it, the record that row holds, and the store's read of it. The rows are
 * written by the deliveries' compare-and-set (see delivery-statements.ts), in
 * the same statement as the update that records the attempt.
 */

/** An attempt row as node-postgres returns it (bigint as string). */
export interface AttemptRow {
  attempt: number;
  trigger: string;
  started_at: string;
  duration_ms: number;
  response_code: number | null;
  error_kind: string | null;
  error_message: string | null;
  response_excerpt: string | null;
}

/** The record a row holds. */
export function toAttemptRecord(row: AttemptRow): AttemptRecord {
  return {
    attempt: row.attempt,
    trigger: row.trigger as AttemptTrigger,
    startedAt: Number(row.started_at),
    durationMs: row.duration_ms,
    responseCode: row.response_code,
    errorKind: row.error_kind as AttemptErrorKind | null,
    errorMessage: row.error_message,
    responseExcerpt: row.response_excerpt,
  };
}

/** The store's SQL on the attempts table of one schema. */
export interface AttemptStatements {
  /** $1 delivery id: its attempts, oldest first (the primary key's order). */
  list: Statement;
}

/** Builds the statements for a schema. */
export function attemptStatements(schema: SchemaName): AttemptStatements {
  return {
    list: statement(
      `SELECT attempt, trigger, started_at, duration_ms, response_code, error_kind, error_message, response_excerpt
         FROM ${schema.quoted}.webhook_attempts WHERE delivery_id = $1 ORDER BY attempt`,
    ),
  };
}
