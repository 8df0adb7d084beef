import { createWorker } from '@svc/webhooks-core';
import { createBenchPool, freshSchema } from './bench-database';
import { type LatencySummary, summarize } from './percentiles';
import { createJobSender, startBoss, stopBoss } from './pgboss-throughput';
import { cancelledJob, configureAgencies, createBenchService } from './svc-setup';
import { epochNow, startTimingReceiver } from './timing-receiver';

const SCHEMA = 'bench_pg_latency';

/** Options of a paced run: `rate` emits per second for `seconds`, the first second not counted. */
export interface PacedRun {
  rate: number;
  seconds: number;
}

/**
 * Calls `emit(n)` at a steady `rate` (scheduled against the clock, so one slow
 * emit does not delay the next) and resolves when all have been started.
 */
export async function paced(run: PacedRun, emit: (n: number) => void): Promise<number> {
  const total = run.rate * run.seconds;
  const interval = 1000 / run.rate;
  const start = performance.now();
  for (let n = 0; n < total; n++) {
    const wait = start + n * interval - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    emit(n);
  }
  return total;
}

/** Emit-to-receive times (ms) of the deliveries after the first second. */
export function latencies(
  sentAt: Map<string, number>,
  receivedAt: Map<string, number>,
  warmup: number,
): number[] {
  const samples: number[] = [];
  for (const [entityId, sent] of sentAt) {
    const received = receivedAt.get(entityId);
    if (received !== undefined && Number(entityId.slice('job-'.length)) >= warmup)
      samples.push(received - sent);
  }
  return samples;
}

/** Waits until `count` distinct deliveries have been received (or a minute passed). */
export async function drained(receivedAt: Map<string, number>, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (receivedAt.size < count && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * @svc/webhooks-pg: from the start of `emit` (config read + one INSERT whose
 * NOTIFY wakes the idle worker) until the body has arrived at the receiver,
 * which runs in its own process; the worker runs in this (the emitting) process,
 * as an embedded deployment does.
 */
export async function latencyWithSvc(run: PacedRun): Promise<LatencySummary> {
  const receiver = await startTimingReceiver();
  const receivedAt = receiver.arrivals;
  const pool = createBenchPool(16);
  await freshSchema(pool, SCHEMA);
  const { webhooks, adapters } = createBenchService(pool, SCHEMA, receiver.ca);
  const worker = createWorker(webhooks, { concurrency: 64 });
  try {
    const agencies = await configureAgencies(webhooks, 100, receiver.url);
    await worker.start();
    const sentAt = new Map<string, number>();
    const total = await paced(run, (n) => {
      sentAt.set(`job-${n}`, epochNow());
      void webhooks.emit(cancelledJob(agencies[n % agencies.length]!, n));
    });
    await drained(receivedAt, total);
    return summarize(latencies(sentAt, receivedAt, run.rate));
  } finally {
    await worker.stop();
    await webhooks.close();
    await adapters.close();
    await receiver.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await pool.end();
  }
}

/** pg-boss 10: `send` per event, one `work()` worker (batches of up to 256) polling every 0.5 s, its minimum. */
export async function latencyWithPgBoss(run: PacedRun): Promise<LatencySummary> {
  const receiver = await startTimingReceiver();
  const receivedAt = receiver.arrivals;
  const boss = await startBoss();
  const sender = createJobSender(receiver.ca, 64);
  try {
    await boss.work<{ event: ReturnType<typeof cancelledJob>; url: string }>(
      'deliveries',
      { batchSize: 256, pollingIntervalSeconds: 0.5 },
      async (jobs) => {
        await Promise.all(jobs.map((job) => sender.send(job.data, job.id)));
      },
    );
    const sentAt = new Map<string, number>();
    const total = await paced(run, (n) => {
      sentAt.set(`job-${n}`, epochNow());
      void boss.send('deliveries', { event: cancelledJob(`agency-${n % 100}`, n), url: receiver.url });
    });
    await drained(receivedAt, total);
    return summarize(latencies(sentAt, receivedAt, run.rate));
  } finally {
    await stopBoss(boss);
    await sender.close();
    await receiver.close();
  }
}
