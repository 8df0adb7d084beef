import type { CountDeliveriesFilter, ListDeliveriesOptions } from '@svc/webhooks-core';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseSchemaName } from '../src/schema/schema-name';
import { countStatements, listStatements } from '../src/store/list-statements';
import { createTestPool, createTestSchema, describePg } from './pg-test-database';
import { explainPrepared, type PlanNode } from './query-plan';

const BASE_TIME = 1_700_000_000_000;
const AGENCIES = 40;
const PER_AGENCY = 500;
/** What the service asks for: a page of 20 and one more. */
const LIMIT = 21;
/** Deliveries per entity in the seeded table. */
const PER_ENTITY = 4;

/**
 * 20,000 finished and pending deliveries, agencies interleaved (so an agency's
 * rows lie on different pages, as in real traffic), one a second. Status and
 * type come from a hash of the row number, independent of each other: 5 %
 * pending, 15 % failed; 2 % `job_cancelled` (the rare type), 70 % `job_created`.
 * Each entity has 4 deliveries, all of one agency. Payloads are padded to the
 * size of real ones: with tiny rows the planner rightly reads an agency's few
 * pages whole, which would measure that instead of the indexes.
 */
async function seed(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(
    `INSERT INTO "${schema}".webhook_deliveries
       (id, agency_id, event_id, event_type, entity_type, entity_id, payload, created_on, created_at, status,
        attempt, max_attempts)
     SELECT 'd-' || lpad(n::text, 6, '0'), 'agency-' || (n % ${AGENCIES}), 'evt-' || n,
            CASE WHEN h % 100 < 2 THEN 'job_cancelled' WHEN h % 100 < 30 THEN 'quote_approved' ELSE 'job_created' END,
            'job', 'job-' || (n % ${(AGENCIES * PER_AGENCY) / PER_ENTITY}), json_build_object('note', repeat('x', 600)),
            $1::bigint + n * 1000, $1::bigint + n * 1000,
            CASE WHEN (h / 100) % 20 = 0 THEN 'pending' WHEN (h / 100) % 20 < 4 THEN 'failed' ELSE 'success' END, 1, 5
       FROM generate_series(0, ${AGENCIES * PER_AGENCY - 1}) AS n,
            LATERAL (SELECT abs(hashint4(n)) AS h) AS hashed`,
    [BASE_TIME],
  );
  await pool.query(`VACUUM (ANALYZE) "${schema}".webhook_deliveries`);
}

/** Rows the plan read from the deliveries table: returned plus stepped over by filters, in every loop. */
function rowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'webhook_deliveries'
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

const SECOND = 1_000;
const at = (row: number) => BASE_TIME + row * SECOND;
const windows: Partial<ListDeliveriesOptions>[] = [
  {},
  { createdSince: at(2_000), createdBefore: at(2_400) },
  { createdSince: at(12_000) },
  { createdBefore: at(1_000) },
];

function everyCombination(): ListDeliveriesOptions[] {
  const combinations: ListDeliveriesOptions[] = [];
  for (const status of [undefined, 'pending', 'failed'] as const)
    for (const eventType of [undefined, 'job_cancelled', 'job_created'])
      for (const entityId of [undefined, 'job-1207'])
        for (const window of windows)
          for (const beforeId of [undefined, 'd-015000'])
            combinations.push({ status, eventType, entityId, ...window, beforeId, limit: LIMIT });
  return combinations;
}

describePg('PostgreSQL list filters: the rows a page reads', () => {
  const pool = createTestPool({ max: 2 });
  let schema = '';
  let drop = async () => {};
  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(pool));
    await seed(pool, schema);
  }, 60_000);
  afterAll(async () => {
    await drop();
    await pool.end();
  });

  /** EXPLAIN ANALYZE of the store's statement, planned for these values or generically (as a prepared statement may be). */
  async function rowsReadBy(options: ListDeliveriesOptions, plan: 'custom' | 'generic'): Promise<number> {
    const [stmt, values] = listStatements(parseSchemaName(schema))('agency-7', options);
    return rowsRead(await explainPrepared(pool, stmt.text, values, plan));
  }

  it('every combination of filters, cursor or not, reads at most a page of rows (plus an entity’s few)', async () => {
    const over: string[] = [];
    for (const options of everyCombination()) {
      for (const plan of ['custom', 'generic'] as const) {
        const read = await rowsReadBy(options, plan);
        if (read > LIMIT + PER_ENTITY) over.push(`${plan} ${JSON.stringify(options)}: ${read} rows`);
      }
    }
    expect(over).toEqual([]);
  }, 120_000);

  // The store sends counts unprepared, so they are always planned for their values.
  it('a recovery’s count (failed, a window, an event type or not) reads the list’s index only, no row', async () => {
    const counts: CountDeliveriesFilter[] = [
      { status: 'failed', createdSince: at(2_000), createdBefore: at(12_000) },
      { status: 'failed', eventType: 'job_created', createdSince: at(2_000), createdBefore: at(12_000) },
      { status: 'failed', eventType: 'job_cancelled', createdSince: at(0), createdBefore: at(20_000) },
    ];
    const readsRows: string[] = [];
    for (const filter of counts) {
      const [stmt, values] = countStatements(parseSchemaName(schema))('agency-7', filter);
      const scans = tableScans(await explainPrepared(pool, stmt.text, values, 'custom'));
      if (!scans.every((scan) => scan['Node Type'] === 'Index Only Scan' && scan['Heap Fetches'] === 0)) {
        readsRows.push(`${JSON.stringify(filter)}: ${JSON.stringify(scans)}`);
      }
    }
    expect(readsRows).toEqual([]);
  });
});

/** The plan's nodes that read the deliveries table. */
function tableScans(node: PlanNode): PlanNode[] {
  const own = node['Relation Name'] === 'webhook_deliveries' ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap(tableScans)];
}
