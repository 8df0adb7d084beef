import type { WebhookService } from '@svc/webhooks-core';
import type pg from 'pg';
import { migrationChecksum } from '../../packages/pg/src/schema/migration';
import { MIGRATIONS } from '../../packages/pg/src/schema/migration-list';
import { createBenchPool, freshSchema } from './bench-database';
import { type LatencySummary, summarize } from './percentiles';
import { type FilterCase, measureFilters } from './scale-filters';
import { createBenchService } from './svc-setup';

const SCHEMA = 'bench_pg_scale';
export const SCALE_ROWS = 1_000_000;
export const SCALE_AGENCIES = 1_000;
const BASE_TIME = 1_700_000_000_000;
const CHUNK = 100_000;
/** Time between two deliveries of the data set (so `createdAt` runs from BASE_TIME + 50 to BASE_TIME + 50,000,000). */
const SPACING_MS = 50;
/** Marks the data set's shape (a comment on the table): a run with another shape reloads rather than reuses it. */
const DATA_SHAPE = 'bench-scale: event types, shared entities (v2)';

/**
 * One chunk of deliveries, generated inside PostgreSQL: ids are UUIDv7-shaped
 * (48-bit time first, so they sort by creation), agencies interleaved the way
 * real traffic interleaves them, 5 % pending, 15 % failed, the rest delivered
 * (in every agency). Pending rows carry no queue entry: the benchmark measures
 * reads, and a worker must not start sending them.
 *
 * For the list filters: event types mixed 70 % `job_created`, 20 % `job_completed`,
 * 9 % `quote_approved` and 1 % `job_cancelled` (the rare type, where a walk of the
 * agency's newest rows would find the fewest matches), independent of the status;
 * each entity (`job-<k>`) has 4 deliveries, all in one agency, spread over the
 * whole time range; a delivery every 50 ms overall, so each agency's 1,000 span
 * about 14 hours.
 */
const LOAD_CHUNK = `
INSERT INTO "${SCHEMA}".webhook_deliveries
  (id, agency_id, event_id, event_type, entity_type, entity_id, parent_entity_id, created_by_id, created_by_role,
   payload, created_on, created_at, status, attempt, max_attempts, next_retry_at, last_attempt_at, delivered_at,
   last_response_code, last_error_message, last_response_excerpt)
SELECT id, agency, 'evt_' || n, event_type, 'job', 'job-' || (n % ${SCALE_ROWS / 4}), NULL, 'agent-' || (n % 50), 'Agent',
       json_build_object('jobId', 'job-' || n, 'agencyId', agency, 'jobNumber', n, 'categoryId', 'plumbing',
         'propertyId', 'property-' || (n % 5000), 'estateId', NULL, 'requestorType', NULL, 'requestorInfo', NULL,
         'originalJobId', NULL, 'originalJobNumber', NULL, 'originalAgencyId', NULL, 'originalAgencyName', NULL,
         'cancellationReason', NULL, 'propertyRecreated', NULL, 'transferredToServiceMaintenance', NULL),
       at, at,
       CASE WHEN s = 0 THEN 'pending' WHEN s < 4 THEN 'failed' ELSE 'success' END,
       CASE WHEN s = 0 THEN 1 WHEN s < 4 THEN 5 ELSE 1 END, 5,
       CASE WHEN s = 0 THEN at + 60000 END, at + 1000,
       CASE WHEN s >= 4 THEN at + 1000 END,
       CASE WHEN s = 0 THEN 503 WHEN s < 4 THEN 500 ELSE 200 END,
       CASE WHEN s < 4 THEN 'HTTP 5xx from receiver' END, 'ok'
  FROM (
    -- s cycles through 0..19 along each agency's own deliveries (n / 1000), so
    -- every agency has the same status mix: 1 in 20 pending, 3 in 20 failed.
    SELECT n, (n / 1000) % 20 AS s, ${BASE_TIME}::bigint + n * ${SPACING_MS} AS at, 'agency-' || ((n * 7919) % ${SCALE_AGENCIES}) AS agency,
           lpad(to_hex(${BASE_TIME}::bigint + n * 50), 12, '0') AS h, md5(n::text) AS r
      FROM generate_series($1::bigint, $2::bigint) AS n
  ) AS g,
  LATERAL (SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-8' || substr(r, 4, 3)
                  || '-' || substr(r, 7, 12) AS id) AS u,
  -- The type from other bits of the hash than the id's, so it is independent of the status.
  LATERAL (SELECT ('x' || substr(r, 20, 4))::bit(16)::int % 100 AS m) AS t,
  LATERAL (SELECT CASE WHEN m = 0 THEN 'job_cancelled' WHEN m < 10 THEN 'quote_approved'
                       WHEN m < 30 THEN 'job_completed' ELSE 'job_created' END AS event_type) AS e`;

/** Whether an earlier run left exactly this data set, made with exactly these migrations. */
async function reusable(pool: pg.Pool): Promise<boolean> {
  try {
    const ledger = await pool.query(
      `SELECT version, checksum FROM "${SCHEMA}".schema_migrations ORDER BY version`,
    );
    const current = MIGRATIONS.map((migration) => ({
      version: migration.version,
      checksum: migrationChecksum(migration),
    }));
    if (JSON.stringify(ledger.rows) !== JSON.stringify(current)) return false;
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n, obj_description($1::regclass, 'pg_class') AS shape FROM "${SCHEMA}".webhook_deliveries`,
      [`"${SCHEMA}".webhook_deliveries`],
    );
    return rows[0].n === SCALE_ROWS && rows[0].shape === DATA_SHAPE;
  } catch {
    return false;
  }
}

/** Loads the million deliveries unless a previous run left them in place; returns seconds spent loading. */
async function ensureLoaded(pool: pg.Pool, log: (line: string) => void): Promise<number | null> {
  if (await reusable(pool)) return null;
  await freshSchema(pool, SCHEMA);
  const started = performance.now();
  for (let from = 1; from <= SCALE_ROWS; from += CHUNK) {
    await pool.query(LOAD_CHUNK, [from, from + CHUNK - 1]);
    log(`  loaded ${from + CHUNK - 1} rows`);
  }
  await pool.query(`VACUUM (ANALYZE) "${SCHEMA}".webhook_deliveries`);
  await pool.query(`COMMENT ON TABLE "${SCHEMA}".webhook_deliveries IS '${DATA_SHAPE}'`);
  return (performance.now() - started) / 1000;
}

/** Times `operation` `samples` times, one at a time, after `warmup` untimed runs. */
async function time(samples: number, warmup: number, operation: (index: number) => Promise<unknown>) {
  for (let index = 0; index < warmup; index++) await operation(index);
  const durations: number[] = [];
  for (let index = 0; index < samples; index++) {
    const started = performance.now();
    await operation(warmup + index);
    durations.push(performance.now() - started);
  }
  return summarize(durations);
}

export interface ScaleResult {
  loadSeconds: number | null;
  tableSize: string;
  indexSize: string;
  list: LatencySummary;
  listFailed: LatencySummary;
  listNextPage: LatencySummary;
  get: LatencySummary;
  /** The list's filters, each alone, with a status and combined. */
  filters: FilterCase[];
}

async function samplePairs(pool: pg.Pool, count: number): Promise<Array<{ agency_id: string; id: string }>> {
  const { rows } = await pool.query(
    `SELECT agency_id, id FROM "${SCHEMA}".webhook_deliveries TABLESAMPLE SYSTEM (1) ORDER BY random() LIMIT $1`,
    [count],
  );
  return rows;
}

async function measure(webhooks: WebhookService, pool: pg.Pool, samples: number) {
  const agency = (index: number) => `agency-${(index * 37) % SCALE_AGENCIES}`;
  const list = await time(samples, 200, (index) => webhooks.listDeliveries(agency(index)));
  const listFailed = await time(samples, 200, (index) =>
    webhooks.listDeliveries(agency(index), { status: 'failed' }),
  );
  const cursors = await Promise.all(
    Array.from(
      { length: 50 },
      async (_, index) => (await webhooks.listDeliveries(agency(index))).nextCursor!,
    ),
  );
  const listNextPage = await time(samples, 200, (index) =>
    webhooks.listDeliveries(agency(index % 50), { cursor: cursors[index % 50] }),
  );
  const pairs = await samplePairs(pool, samples + 200);
  const get = await time(samples, 200, (index) => {
    const pair = pairs[index % pairs.length]!;
    return webhooks.getDelivery(pair.agency_id, pair.id);
  });
  const data = {
    schema: SCHEMA,
    agency,
    firstCreatedAt: BASE_TIME + SPACING_MS,
    lastCreatedAt: BASE_TIME + SCALE_ROWS * SPACING_MS,
  };
  const filters = await measureFilters(webhooks, pool, data, samples, time);
  return { list, listFailed, listNextPage, get, filters };
}

/**
 * List and get latency through the service (validation, cursor, store, mapping)
 * with 1,000,000 deliveries across 1,000 agencies stored, one call at a time.
 */
export async function scaleLatencies(samples: number, log: (line: string) => void): Promise<ScaleResult> {
  const pool = createBenchPool(4);
  const { webhooks, adapters } = createBenchService(pool, SCHEMA, '');
  try {
    const loadSeconds = await ensureLoaded(pool, log);
    const sizes = await pool.query(
      `SELECT pg_size_pretty(pg_table_size($1)) AS table_size, pg_size_pretty(pg_indexes_size($1)) AS index_size`,
      [`"${SCHEMA}".webhook_deliveries`],
    );
    const latencies = await measure(webhooks, pool, samples);
    return {
      loadSeconds,
      tableSize: sizes.rows[0].table_size,
      indexSize: sizes.rows[0].index_size,
      ...latencies,
    };
  } finally {
    await webhooks.close();
    await adapters.close();
    await pool.end();
  }
}
