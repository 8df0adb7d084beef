import type { ReceiverProcess } from '@svc/test-support';
import { createWorker } from '@svc/webhooks-core';
import { createBenchPool, freshSchema } from './bench-database';
import { cancelledJob, configureAgencies, createBenchService, waitForCount } from './svc-setup';

/** Result of one drain: how fast N queued deliveries reached the receiver. */
export interface DrainResult {
  deliveries: number;
  seconds: number;
  perSecond: number;
}

const SCHEMA = 'bench_pg_throughput';

/**
 * Emits `count` deliveries (spread over 100 agencies) with the worker stopped,
 * then starts one worker with `concurrency` and times until the receiver has
 * them all: the same shape as the pg-boss drain it is compared with.
 */
export async function drainWithSvc(receiver: ReceiverProcess, count: number, concurrency: number) {
  const pool = createBenchPool(16);
  await freshSchema(pool, SCHEMA);
  const { webhooks, adapters } = createBenchService(pool, SCHEMA, receiver.ca);
  try {
    const agencies = await configureAgencies(webhooks, 100, receiver.url);
    const emitStarted = performance.now();
    for (let start = 0; start < count; start += 64) {
      const batch = [];
      for (let n = start; n < Math.min(count, start + 64); n++) {
        batch.push(webhooks.emit(cancelledJob(agencies[n % agencies.length]!, n)));
      }
      await Promise.all(batch);
    }
    const emitSeconds = (performance.now() - emitStarted) / 1000;
    receiver.reset();
    const worker = createWorker(webhooks, { concurrency });
    const started = performance.now();
    await worker.start();
    await waitForCount(async () => (await receiver.stats()).received, count);
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    const drain: DrainResult = { deliveries: count, seconds, perSecond: count / seconds };
    return { drain, emitPerSecond: count / emitSeconds };
  } finally {
    await webhooks.close();
    await adapters.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await pool.end();
  }
}
