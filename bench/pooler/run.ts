/**
 * `pnpm --filter @svc/bench run pooler`: the PostgreSQL adapter through PgBouncer
 * in transaction mode (`.ci/pgbouncer.sh`, `PGBOUNCER_URL`), beside a direct
 * connection, written to the `pooler` section of docs/benchmarks.md.
 *
 * Each setup emits 2,000 deliveries at a paced 100/s to a real local HTTPS
 * receiver in its own process, with one worker in the emitting process, and
 * measures emit-to-receive (start of `emit` to the body at the receiver):
 *
 * 1. PgBouncer, the adapter's defaults (no `listen`: the queue finds the pooler,
 *    sends statements unnamed and polls every 50 ms).
 * 2. PgBouncer with `listen` on a direct connection (NOTIFY wake-ups).
 * 3. PgBouncer with `notify: false` and the worker's `pollIntervalMs: 100`.
 * 4. Direct connection, the defaults (named statements, LISTEN on the pool).
 */

import { loadavg } from 'node:os';
import { createWebhookService, createWorker, type WorkerOptions } from '@svc/webhooks-core';
import pg from 'pg';
import { createPgWebhooks, type PgWebhooksOptions } from '../../packages/pg/src/index';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { DATABASE_URL, freshSchema } from '../pg/bench-database';
import { drained, latencies, paced } from '../pg/latency';
import { type LatencySummary, ms, summarize } from '../pg/percentiles';
import { cancelledJob, configureAgencies } from '../pg/svc-setup';
import { epochNow, startTimingReceiver, type TimingReceiver } from '../pg/timing-receiver';

const PGBOUNCER_URL = process.env.PGBOUNCER_URL ?? 'postgres://postgres@127.0.0.1:6432/test';
const SCHEMA = 'bench_pooler';
const RUN = { rate: 100, seconds: 20 };
const ROUNDS = Number(process.env.BENCH_POOLER_ROUNDS ?? 3);
/** Only the setups whose name contains this (all when unset), for a quick look at one. */
const ONLY = process.env.BENCH_POOLER_ONLY ?? '';
/** Bar: with the defaults through PgBouncer, p99 under this. */
const DEFAULTS_P99_BAR_MS = 100;
/** Bar: without LISTEN (the fallback poll), p99 under this. */
const NO_LISTEN_P99_BAR_MS = 250;

interface Setup {
  name: string;
  url: string;
  adapters: Omit<PgWebhooksOptions, 'pool' | 'schema'>;
  worker: WorkerOptions;
}

const ALL_SETUPS: Setup[] = [
  { name: 'PgBouncer, defaults (polls every 50 ms)', url: PGBOUNCER_URL, adapters: {}, worker: {} },
  {
    name: 'PgBouncer, `listen` on a direct connection',
    url: PGBOUNCER_URL,
    adapters: { listen: DATABASE_URL },
    worker: {},
  },
  {
    name: 'PgBouncer, `notify: false`, `pollIntervalMs: 100`',
    url: PGBOUNCER_URL,
    adapters: { notify: false },
    worker: { pollIntervalMs: 100 },
  },
  { name: 'direct, defaults (LISTEN on the pool)', url: DATABASE_URL, adapters: {}, worker: {} },
];

const SETUPS = ALL_SETUPS.filter((setup) => setup.name.includes(ONLY));

interface RunResult {
  summary: LatencySummary;
  /** The 1-minute load average when the run ended: other work on the machine shows here. */
  load: number;
  emitted: number;
  delivered: number;
  emitErrors: string[];
  reported: string[];
}

async function measure(setup: Setup, receiver: TimingReceiver, run = RUN): Promise<RunResult> {
  const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  await freshSchema(admin, SCHEMA);
  const pool = new pg.Pool({ connectionString: setup.url, max: 16 });
  pool.on('error', (error) => console.warn(`idle connection lost: ${error.message}`));
  const reported: string[] = [];
  const adapters = createPgWebhooks({ pool, schema: SCHEMA, ...setup.adapters });
  const webhooks = createWebhookService({
    store: adapters.store,
    queue: adapters.queue,
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: receiver.ca } },
    hooks: {
      onError: (error, context) => reported.push(`${context.stage}: ${(error as { code?: string }).code}`),
    },
  });
  const worker = createWorker(webhooks, { concurrency: 64, ...setup.worker });
  receiver.arrivals.clear();
  try {
    const agencies = await configureAgencies(webhooks, 100, receiver.url);
    await worker.start();
    const sentAt = new Map<string, number>();
    const emitErrors: string[] = [];
    const total = await paced(run, (n) => {
      sentAt.set(`job-${n}`, epochNow());
      webhooks.emit(cancelledJob(agencies[n % agencies.length]!, n)).catch((error: unknown) => {
        sentAt.delete(`job-${n}`);
        emitErrors.push((error as { code?: string }).code ?? String(error));
      });
    });
    await drained(receiver.arrivals, total - emitErrors.length);
    return {
      summary: summarize(latencies(sentAt, receiver.arrivals, run.rate)),
      load: loadavg()[0]!,
      emitted: total,
      delivered: receiver.arrivals.size,
      emitErrors,
      reported: [...new Set(reported)],
    };
  } finally {
    await worker.stop();
    await webhooks.close();
    await adapters.close();
    await pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await admin.end();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const receiver = await startTimingReceiver();
  const results = new Map<string, RunResult[]>(SETUPS.map((setup) => [setup.name, []]));
  try {
    // Untimed warm-up of every setup (JIT, TLS sessions, PgBouncer's server connections).
    for (const setup of SETUPS) await measure(setup, receiver, { rate: RUN.rate, seconds: 3 });
    for (let round = 1; round <= ROUNDS; round++) {
      for (const setup of SETUPS) {
        const result = await measure(setup, receiver);
        results.get(setup.name)!.push(result);
        console.log(
          `round ${round}, ${setup.name}: p50 ${ms(result.summary.p50)}, p99 ${ms(result.summary.p99)}, ` +
            `delivered ${result.delivered}/${result.emitted}, emit errors ${result.emitErrors.length}, ` +
            `reported [${result.reported.join(', ')}], load ${result.load.toFixed(1)}`,
        );
      }
    }
  } finally {
    await receiver.close();
  }

  if (SETUPS.length < ALL_SETUPS.length) return; // a quick look: nothing written
  const rows = SETUPS.map((setup) => {
    const runs = results.get(setup.name)!;
    const delivered = runs.every((run) => run.delivered === run.emitted)
      ? `all (${runs[0]!.emitted} × ${runs.length})`
      : runs.map((run) => `${run.delivered}/${run.emitted}`).join(', ');
    const errors = runs.reduce((sum, run) => sum + run.emitErrors.length, 0);
    const reported = [...new Set(runs.flatMap((run) => run.reported))].join(', ') || 'nothing';
    return [
      setup.name,
      ms(median(runs.map((run) => run.summary.p50))),
      ms(median(runs.map((run) => run.summary.p99))),
      ms(Math.max(...runs.map((run) => run.summary.p99))),
      delivered,
      String(errors),
      reported,
    ];
  });
  const loads = [...results.values()].flat().map((run) => run.load);
  const defaults = results.get(SETUPS[0]!.name)!;
  const noListen = results.get(SETUPS[2]!.name)!;
  const worst = (runs: RunResult[]) => Math.max(...runs.map((run) => run.summary.p99));
  const allDelivered = defaults.every((run) => run.delivered === run.emitted && run.emitErrors.length === 0);
  const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
  const markdown = [
    '## PostgreSQL through PgBouncer (transaction mode)',
    '',
    `${describeMachine()}; PostgreSQL and PgBouncer 1.18 (\`pool_mode = transaction\`) on the loopback. ` +
      `Each setup emits ${RUN.rate * RUN.seconds} deliveries at a paced ${RUN.rate}/s over 100 agencies to a ` +
      'local HTTPS receiver in its own process, with one worker (concurrency 64) in the emitting process; ' +
      'emit-to-receive from the start of `emit` to the body at the receiver, the first second not counted. ' +
      `${ROUNDS} rounds, setups in turn within each round: p50 and p99 are medians over the rounds, ` +
      '"worst p99" the highest round. `pnpm --filter @svc/bench run pooler` (needs `.ci/pgbouncer.sh`). ' +
      `1-minute load average at the end of the runs: ${loads.map((load) => load.toFixed(1)).join(', ')} ` +
      '(on 2 cores, anything far above 2 means other work shared the machine and stretched every latency).',
    '',
    markdownTable(
      ['setup', 'p50', 'p99', 'worst p99', 'delivered', 'emit errors', 'reported to hooks.onError'],
      rows,
    ),
    '',
    `Bar, through PgBouncer with the defaults: every delivery delivered with no emit error, p99 under ` +
      `${DEFAULTS_P99_BAR_MS} ms — ${verdict(allDelivered && worst(defaults) < DEFAULTS_P99_BAR_MS)} ` +
      `(worst p99 ${ms(worst(defaults))}). Without LISTEN, p99 under ${NO_LISTEN_P99_BAR_MS} ms — ` +
      `${verdict(worst(defaults) < NO_LISTEN_P99_BAR_MS && worst(noListen) < NO_LISTEN_P99_BAR_MS)} ` +
      `(defaults ${ms(worst(defaults))}, \`notify: false\` with 100 ms polls ${ms(worst(noListen))}).`,
  ].join('\n');
  writeBenchSection('pooler', markdown);
  console.log(markdown);
}

await main();
