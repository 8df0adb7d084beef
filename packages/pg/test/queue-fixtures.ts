import type pg from 'pg';
import { claimStatement } from '../src/queue/claim-statements';
import { parseSchemaName } from '../src/schema/schema-name';
import type { PlanNode } from './query-plan';

/** Epoch ms the queue tests run at (14 Nov 2023, as makeDeliveryRecord's defaults). */
export const BASE_TIME = 1_700_000_000_000;
export const LEASE_MS = 30_000;

/** Pending deliveries of one agency with queue entries, inserted in one statement. */
export interface QueuedRows {
  agencyId: string;
  count: number;
  /** run_at of the first row; each next one 1 ms later. */
  firstRunAt: number;
}

/**
 * Inserts queued pending deliveries straight into the table (thousands in one
 * statement, where emitting them one by one would take seconds). Ids sort by
 * agency then number, so tests can tell rows apart.
 */
export async function seedQueue(pool: pg.Pool, schema: string, rows: readonly QueuedRows[]): Promise<void> {
  for (const { agencyId, count, firstRunAt } of rows) {
    await pool.query(
      `INSERT INTO "${schema}".webhook_deliveries
         (id, agency_id, event_id, event_type, entity_type, payload, created_on, created_at, status, attempt,
          max_attempts, next_retry_at, run_at)
       SELECT $1::text || '-' || lpad(n::text, 6, '0'), $1::text, 'evt-' || n, 'job_created', 'job', '{}',
              $2::bigint, $2::bigint, 'pending', 0, 5, $2::bigint + n - 1, $2::bigint + n - 1
         FROM generate_series(1, $3::int) AS n`,
      [agencyId, firstRunAt, count],
    );
  }
  await pool.query(`ANALYZE "${schema}".webhook_deliveries`);
}

/**
 * Finished deliveries (no queue entry), as a table in use holds by the hundred
 * thousand. With a table of a few hundred rows the planner rightly reads it
 * whole, and counting the rows a claim reads would measure that instead.
 */
export async function seedHistory(pool: pg.Pool, schema: string, count: number): Promise<void> {
  await pool.query(
    `INSERT INTO "${schema}".webhook_deliveries
       (id, agency_id, event_id, event_type, entity_type, payload, created_on, created_at, status, attempt,
        max_attempts, delivered_at)
     SELECT 'done-' || lpad(n::text, 7, '0'), 'agency-' || lpad((n % 50)::text, 2, '0'), 'done-' || n, 'job_created',
            'job', '{}', $1::bigint, $1::bigint, 'success', 1, 5, $1::bigint
       FROM generate_series(1, $2::int) AS n`,
    [BASE_TIME - 86_400_000, count],
  );
}

/** The claim statement's parameters, as PgDeliveryQueue passes them. */
export interface ClaimParams {
  now: number;
  limit: number;
  excluded?: readonly string[];
  cursor?: string;
  cap?: number | null;
}

/**
 * Runs the claim statement once under EXPLAIN ANALYZE, rolled back, and counts
 * the rows its scans of the deliveries table read: those they returned plus
 * those their filters stepped over, in every loop. A count of work done, not
 * of time, so it holds on a busy machine.
 */
export async function rowsReadByClaim(pool: pg.Pool, schema: string, params: ClaimParams): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${claimStatement(parseSchemaName(schema)).text}`,
      [params.now, params.limit, params.excluded ?? [], LEASE_MS, params.cursor ?? '', params.cap ?? null, 1],
    );
    return rowsRead((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

function rowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'webhook_deliveries' && node['Node Type'] !== 'ModifyTable'
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}
