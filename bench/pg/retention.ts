import {
  createWebhookService,
  createWorker,
  type PurgeDeliveriesOptions,
  type WebhookStore,
} from '@svc/webhooks-core';
import type pg from 'pg';
import { createPgWebhooks } from '../../packages/pg/src/index';
import { createBenchPool, freshSchema } from './bench-database';
import { drained, latencies, type PacedRun, paced } from './latency';
import { type LatencySummary, summarize } from './percentiles';
import { cancelledJob, configureAgencies } from './svc-setup';
import { epochNow, startTimingReceiver, type TimingReceiver } from './timing-receiver';

const SCHEMA = 'bench_pg_retention';
const DAY_MS = 86_400_000;
const CHUNK = 100_000;
/** How long the purge may take to finish the backlog after the paced run, at most. */
const DRAIN_CAP_MS = 20 * 60_000;

/** Expired rows to load: `BENCH_PG_RETENTION_ROWS`, 1,000,000 by default. */
export const RETENTION_ROWS = Number(process.env.BENCH_PG_RETENTION_ROWS ?? 1_000_000);

/**
 * Expired deliveries, each with one attempt, generated inside PostgreSQL in
 * creation order (as a real table fills): 85 % `success` created 31 to 120 days
 * ago, 15 % `failed` created 91 to 120 days ago, all past the default retention.
 */
const LOAD_CHUNK = `
WITH rows AS (
  INSERT INTO "${SCHEMA}".webhook_deliveries
    (id, agency_id, event_id, event_type, entity_type, entity_id, payload, created_on, created_at, status,
     attempt, max_attempts, last_attempt_at, delivered_at, last_response_code, last_error_message)
  SELECT lpad(to_hex(at), 12, '0') || '-' || md5(n::text), 'agency-' || (n % 1000), 'old-' || n,
         'job_created', 'job', 'job-' || n,
         json_build_object('jobId', 'job-' || n, 'agencyId', 'agency-' || (n % 1000), 'jobNumber', n),
         at, at, CASE WHEN failed THEN 'failed' ELSE 'success' END, CASE WHEN failed THEN 5 ELSE 1 END, 5,
         at + 1000, CASE WHEN failed THEN NULL ELSE at + 1000 END, CASE WHEN failed THEN 500 ELSE 200 END,
         CASE WHEN failed THEN 'HTTP 500' END
    FROM generate_series($1::bigint, $2::bigint) AS n,
         LATERAL (SELECT n % 20 < 3 AS failed) AS f,
         LATERAL (SELECT CASE WHEN failed THEN $3::bigint - 120 * ${DAY_MS}::bigint + (n * ${29 * DAY_MS}::bigint / $4::bigint)
                              ELSE $3::bigint - 120 * ${DAY_MS}::bigint + (n * ${89 * DAY_MS}::bigint / $4::bigint) END AS at) AS t
  RETURNING id, created_at, status
)
INSERT INTO "${SCHEMA}".webhook_attempts (delivery_id, attempt, trigger, started_at, duration_ms, response_code)
SELECT id, 1, 'automatic', created_at + 1000, 40, CASE WHEN status = 'failed' THEN 500 ELSE 200 END FROM rows`;

async function load(pool: pg.Pool, log: (line: string) => void): Promise<number> {
  await freshSchema(pool, SCHEMA);
  const started = performance.now();
  const now = Date.now();
  for (let from = 1; from <= RETENTION_ROWS; from += CHUNK) {
    const to = Math.min(RETENTION_ROWS, from + CHUNK - 1);
    await pool.query(LOAD_CHUNK, [from, to, now, RETENTION_ROWS]);
    log(`  loaded ${to} expired rows`);
  }
  await pool.query(`VACUUM (ANALYZE) "${SCHEMA}".webhook_deliveries, "${SCHEMA}".webhook_attempts`);
  // The load leaves gigabytes of dirty pages: written out now rather than by a checkpoint in the middle
  // of the first measured run.
  await pool.query('CHECKPOINT');
  return (performance.now() - started) / 1000;
}

/** A store that times each purge call (a batch): the purge's side of the run. */
function timedPurges(store: WebhookStore) {
  const batches: Array<{ ms: number; deleted: number }> = [];
  const purge = store.purgeDeliveries!.bind(store);
  const timed = new Proxy(store, {
    get(target, key) {
      if (key === 'purgeDeliveries') {
        return async (options: PurgeDeliveriesOptions) => {
          const started = performance.now();
          const deleted = await purge(options);
          batches.push({ ms: performance.now() - started, deleted });
          return deleted;
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { timed, batches };
}

async function expiredLeft(pool: pg.Pool, createdBefore: number): Promise<number> {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n FROM "${SCHEMA}".webhook_deliveries WHERE created_at < $1`,
    [createdBefore],
  );
  return rows[0].n;
}

/** One paced run on the loaded table, with this worker's purge on or off. */
async function pacedRun(
  pool: pg.Pool,
  receiver: TimingReceiver,
  run: PacedRun,
  purge: boolean,
  offset: number,
) {
  const adapters = createPgWebhooks({ pool, schema: SCHEMA });
  const { timed, batches } = timedPurges(adapters.store);
  const webhooks = createWebhookService({
    store: timed,
    queue: adapters.queue,
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: receiver.ca } },
  });
  // The purge's first round one second in: after the emits have started.
  const worker = createWorker(webhooks, {
    concurrency: 64,
    recoverySweep: false,
    retentionPurge: purge ? { intervalMs: 1_000 } : false,
  });
  const agencies = await configureAgencies(webhooks, 100, receiver.url);
  await worker.start();
  const sentAt = new Map<string, number>();
  receiver.arrivals.clear();
  const total = await paced(run, (n) => {
    sentAt.set(`job-${offset + n}`, epochNow());
    void webhooks.emit(cancelledJob(agencies[n % agencies.length]!, offset + n));
  });
  await drained(receiver.arrivals, total);
  const during = [...batches];
  const samples = latencies(sentAt, receiver.arrivals, offset + run.rate);
  return { latency: summarize(samples), during, batches, worker, webhooks, adapters };
}

export interface RetentionBenchResult {
  loadSeconds: number;
  rows: number;
  run: PacedRun;
  baseline: LatencySummary;
  purging: LatencySummary;
  /** Rows the purge deleted while the paced run went on, and in how long. */
  purgedDuringRun: number;
  runSeconds: number;
  batch: LatencySummary;
  batchSize: number;
  /** Time until the whole backlog was gone (null when it was not within the cap), from the purge's start. */
  drainSeconds: number | null;
  leftAfterCap: number;
}

/**
 * Delivery latency while a retention purge drains a large expired backlog: the
 * same paced run twice on the same table of `RETENTION_ROWS` expired deliveries,
 * first with the purge off, then with the worker's default purge (batches of 500,
 * a pause as long as each batch) running beside the deliveries.
 */
export async function retentionUnderLoad(
  run: PacedRun,
  log: (line: string) => void,
): Promise<RetentionBenchResult> {
  const pool = createBenchPool(16);
  const receiver = await startTimingReceiver();
  try {
    const loadSeconds = await load(pool, log);
    const cutoff = Date.now() - 30 * DAY_MS;
    // Untimed: JIT, TLS sessions and catalog caches warm before either measured run.
    const warm = await pacedRun(pool, receiver, { rate: run.rate, seconds: 5 }, false, 2_000_000);
    await warm.worker.stop();
    await warm.webhooks.close();
    await warm.adapters.close();
    log('retention: paced run, purge off');
    const off = await pacedRun(pool, receiver, run, false, 0);
    await off.worker.stop();
    await off.webhooks.close();
    await off.adapters.close();
    log(`  p50 ${off.latency.p50.toFixed(2)} ms, p99 ${off.latency.p99.toFixed(2)} ms`);

    log('retention: paced run, purge draining');
    const purgeStarted = performance.now();
    const on = await pacedRun(pool, receiver, run, true, 1_000_000);
    const runSeconds = (performance.now() - purgeStarted) / 1000;
    const purgedDuringRun = on.during.reduce((sum, batch) => sum + batch.deleted, 0);
    log(
      `  p50 ${on.latency.p50.toFixed(2)} ms, p99 ${on.latency.p99.toFixed(2)} ms; purged ${purgedDuringRun}`,
    );
    let left = await expiredLeft(pool, cutoff);
    while (left > 0 && performance.now() - purgeStarted < DRAIN_CAP_MS) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      left = await expiredLeft(pool, cutoff);
    }
    const drainSeconds = left === 0 ? (performance.now() - purgeStarted) / 1000 : null;
    await on.worker.stop();
    await on.webhooks.close();
    await on.adapters.close();
    return {
      loadSeconds,
      rows: RETENTION_ROWS,
      run,
      baseline: off.latency,
      purging: on.latency,
      purgedDuringRun,
      runSeconds,
      batch: summarize(on.during.map((batch) => batch.ms)),
      batchSize: 500,
      drainSeconds,
      leftAfterCap: left,
    };
  } finally {
    await receiver.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await pool.end();
  }
}
