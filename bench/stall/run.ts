/**
 * `pnpm --filter @svc/bench run stall`: does the worker ever sit idle while
 * deliveries are due? One agency's backlog of new events is delivered, many
 * times over, with a long poll interval (`pollIntervalMs` 5000), so that any
 * wake-up the worker misses shows as a pause of seconds between two deliveries
 * instead of hiding inside the default poll (1 s). Reports per backend the runs
 * with a pause of a second or more, the longest pause, and the median run.
 *
 * Writes the `stall` section of docs/benchmarks.md (`--no-write`: print only).
 * Environment: BENCH_BACKENDS (memory,pg,redis), BENCH_STALL_RUNS (10),
 * BENCH_STALL_ENTRIES (10000), DATABASE_URL, REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createWorker, generateSigningSecret } from '@svc/webhooks-core';
import { BACKENDS, type BackendKind, openBackend } from '../isolation/backends';
import { type IsolationReceivers, startIsolationReceivers } from '../isolation/receivers';
import { configureAgencies, createIsolationService } from '../isolation/service-setup';
import { median } from '../isolation/summary';
import { emitBacklog } from '../lib/backlog';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';

const RUNS = Number(process.env.BENCH_STALL_RUNS ?? 10);
const ENTRIES = Number(process.env.BENCH_STALL_ENTRIES ?? 10_000);
const POLL_INTERVAL_MS = 5_000;
/** A pause between two deliveries at least this long counts as a stall (a run's median gap is well under 1 ms). */
const STALL_MS = 1_000;
const AGENCY = 'agency-stall';
const SELECTED: BackendKind[] = process.env.BENCH_BACKENDS
  ? (process.env.BENCH_BACKENDS.split(',') as BackendKind[])
  : [...BACKENDS];
const write = !process.argv.includes('--no-write');

interface Run {
  seconds: number;
  /** Longest time between two consecutive deliveries (or the start and the first), ms. */
  longestPauseMs: number;
}

async function runOnce(kind: BackendKind, receivers: IsolationReceivers, secret: string): Promise<Run> {
  const tag = randomUUID().slice(0, 8);
  const backend = await openBackend(kind, `stall-${tag}`);
  let delivered = 0;
  let last = 0;
  let longestPauseMs = 0;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const webhooks = createIsolationService(backend, receivers.ca, {
    onDelivered: () => {
      const now = performance.now();
      longestPauseMs = Math.max(longestPauseMs, now - last);
      last = now;
      if (++delivered === ENTRIES) finish();
    },
  });
  await configureAgencies(
    backend.store,
    [{ agencyId: AGENCY, webhookUrl: `https://${AGENCY}.hooks.test:${receivers.ports.ok}/ok/${tag}` }],
    secret,
  );
  await emitBacklog(webhooks, [AGENCY], ENTRIES);
  const worker = createWorker(webhooks, { pollIntervalMs: POLL_INTERVAL_MS });
  const started = performance.now();
  last = started;
  await worker.start();
  await done;
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  await webhooks.close();
  await backend.close();
  return { seconds, longestPauseMs };
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const receivers = await startIsolationReceivers();
  const secret = generateSigningSecret();
  const runs = new Map<BackendKind, Run[]>();
  try {
    for (let n = 1; n <= RUNS; n++) {
      for (const kind of SELECTED) {
        const run = await runOnce(kind, receivers, secret);
        runs.set(kind, [...(runs.get(kind) ?? []), run]);
        const flag = run.longestPauseMs >= STALL_MS ? '  <- stall' : '';
        console.log(
          `run ${n} ${kind}: ${run.seconds.toFixed(2)} s, longest pause ${run.longestPauseMs.toFixed(0)} ms${flag}`,
        );
      }
    }
  } finally {
    await receivers.close();
  }
  const rows = SELECTED.map((kind) => {
    const of = runs.get(kind) ?? [];
    const stalled = of.filter((run) => run.longestPauseMs >= STALL_MS).length;
    const longest = Math.max(...of.map((run) => run.longestPauseMs));
    return [
      kind,
      `${stalled} of ${of.length}`,
      `${Math.round(longest).toLocaleString('en-US')} ms`,
      `${median(of.map((run) => run.longestPauseMs)).toFixed(0)} ms`,
      `${median(of.map((run) => run.seconds)).toFixed(2)} s`,
    ];
  });
  const markdown = `## Stalls: pauses with deliveries due (\`bench/stall\`)

${describeMachine()}; load average ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? 0).toFixed(2)} after.
One agency's backlog of ${ENTRIES.toLocaleString('en-US')} new events, delivered ${RUNS} times per backend by a worker on
default settings except \`pollIntervalMs\` ${POLL_INTERVAL_MS.toLocaleString('en-US')}, receivers by hostname through the resolver hook. A worker that
misses a wake-up waits for its poll; the long poll turns such a miss into a pause of seconds between two
deliveries. A stall: a pause of ${STALL_MS.toLocaleString('en-US')} ms or more. Bar: no stall in any run.

${markdownTable(
  ['backend', 'runs with a stall', 'longest pause', 'median longest pause', 'median run'],
  rows,
)}
`;
  console.log(`\n${markdown}`);
  if (write) writeBenchSection('stall', markdown);
  const stalls = SELECTED.some((kind) =>
    (runs.get(kind) ?? []).some((run) => run.longestPauseMs >= STALL_MS),
  );
  if (stalls) process.exitCode = 1;
}

await main();
