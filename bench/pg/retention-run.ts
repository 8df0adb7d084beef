/**
 * `pnpm --filter @svc/bench run pg-retention`: delivery latency on PostgreSQL
 * while the worker's retention purge drains a backlog of expired deliveries
 * (1,000,000 by default; `BENCH_PG_RETENTION_ROWS` to change it), written to the
 * `pg-retention` section of docs/benchmarks.md.
 */
import { loadavg } from 'node:os';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { type LatencySummary, ms } from './percentiles';
import { type RetentionBenchResult, retentionUnderLoad } from './retention';

const RUN = { rate: 200, seconds: Number(process.env.BENCH_PG_RETENTION_SECONDS ?? 60) };
const log = (line: string) => console.log(line);
const count = (value: number) => Math.round(value).toLocaleString('en-US');

function latencyRow(name: string, summary: LatencySummary): string[] {
  return [name, ms(summary.p50), ms(summary.p99), ms(summary.max), String(summary.count)];
}

function section(result: RetentionBenchResult, startedAt: Date, load: string): string {
  const rate = result.purgedDuringRun / result.runSeconds;
  const drain =
    result.drainSeconds === null
      ? `not finished within the cap (${count(result.leftAfterCap)} rows left)`
      : `${result.drainSeconds.toFixed(0)} s (${count(result.rows / result.drainSeconds)} rows/s, the pause between batches included)`;
  return [
    '## PostgreSQL retention: delivery latency while a purge drains an expired backlog',
    '',
    `Run ${startedAt.toISOString().slice(0, 16)}Z on ${describeMachine()}, PostgreSQL on the same machine;`,
    `load average ${load} when the run started. Command: \`pnpm --filter @svc/bench run pg-retention\`.`,
    '',
    `The table holds ${count(result.rows)} expired deliveries, each with one attempt (85 % \`success\` created 31 to`,
    `120 days ago, 15 % \`failed\` 91 to 120 days ago; bulk-loaded in ${result.loadSeconds.toFixed(0)} s), so all are past the`,
    `default retention. The same paced run twice: ${result.run.rate} emits/s for ${result.run.seconds} s (the first second not`,
    'counted), emit-to-receive at a receiver in its own process, one worker (`concurrency: 64`) in the emitting',
    'process. First with `retentionPurge: false`, then with the default purge (batches of',
    `${result.batchSize}, each followed by a pause four times as long as it took), whose first round starts 1 s into the run.`,
    '',
    markdownTable(
      ['worker', 'p50', 'p99', 'max', 'samples'],
      [
        latencyRow('retention purge off', result.baseline),
        latencyRow('retention purge draining the backlog', result.purging),
      ],
    ),
    '',
    `During the run the purge deleted ${count(result.purgedDuringRun)} deliveries with their attempts (${count(rate)}/s);`,
    `a batch took ${ms(result.batch.p50)} at the median, ${ms(result.batch.p99)} at p99 (${result.batch.count} batches).`,
    `The whole backlog was gone after ${drain}. The run without the purge goes first; on this shared`,
    'machine the tails (p99, max) move between runs by more than the purge moves them, so compare the medians.',
  ].join('\n');
}

const startedAt = new Date();
const load = loadavg()
  .map((value) => value.toFixed(1))
  .join(' / ');
log(
  `retention: loading ${count(Number(process.env.BENCH_PG_RETENTION_ROWS ?? 1_000_000))} expired deliveries`,
);
const result = await retentionUnderLoad(RUN, log);
writeBenchSection('pg-retention', section(result, startedAt, load));
log('wrote the pg-retention section of docs/benchmarks.md');
