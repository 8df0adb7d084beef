/**
 * `pnpm --filter @svc/bench run pooler-prepared`: what named prepared statements
 * save on the PostgreSQL hot path, on a direct connection: drains of the same
 * queue with `preparedStatements` on and off, in alternating pairs.
 */
import { spawnReceiverProcess } from '@svc/test-support';
import { createWebhookService, createWorker } from '@svc/webhooks-core';
import { createPgWebhooks } from '../../packages/pg/src/index';
import { createBenchPool, freshSchema } from '../pg/bench-database';
import { cancelledJob, configureAgencies, waitForCount } from '../pg/svc-setup';

const SCHEMA = 'bench_pooler_prepared';
const COUNT = Number(process.env.BENCH_POOLER_DELIVERIES ?? 10_000);
const PAIRS = Number(process.env.BENCH_POOLER_PAIRS ?? 5);

export interface PreparedDrain {
  emitPerSecond: number;
  deliveredPerSecond: number;
}

/** Emits COUNT deliveries, then drains them with one worker (concurrency 64). */
export async function drainWith(
  receiver: Awaited<ReturnType<typeof spawnReceiverProcess>>,
  preparedStatements: boolean,
  count = COUNT,
): Promise<PreparedDrain> {
  const pool = createBenchPool(16);
  await freshSchema(pool, SCHEMA);
  const adapters = createPgWebhooks({ pool, schema: SCHEMA, preparedStatements });
  const webhooks = createWebhookService({
    store: adapters.store,
    queue: adapters.queue,
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: receiver.ca } },
  });
  try {
    const agencies = await configureAgencies(webhooks, 100, receiver.url);
    const emitStarted = performance.now();
    for (let start = 0; start < count; start += 64) {
      const batch = [];
      for (let n = start; n < Math.min(count, start + 64); n++)
        batch.push(webhooks.emit(cancelledJob(agencies[n % agencies.length]!, n)));
      await Promise.all(batch);
    }
    const emitSeconds = (performance.now() - emitStarted) / 1000;
    receiver.reset();
    const worker = createWorker(webhooks, { concurrency: 64 });
    const started = performance.now();
    await worker.start();
    await waitForCount(async () => (await receiver.stats()).received, count);
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    return { emitPerSecond: count / emitSeconds, deliveredPerSecond: count / seconds };
  } finally {
    await webhooks.close();
    await adapters.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await pool.end();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const receiver = await spawnReceiverProcess();
  try {
    await drainWith(receiver, true, 2_000);
    await drainWith(receiver, false, 2_000);
    const emitRatios: number[] = [];
    const drainRatios: number[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 === 0 ? [true, false] : [false, true];
      const result = new Map<boolean, PreparedDrain>();
      for (const prepared of order) result.set(prepared, await drainWith(receiver, prepared));
      const named = result.get(true)!;
      const unnamed = result.get(false)!;
      emitRatios.push(unnamed.emitPerSecond / named.emitPerSecond);
      drainRatios.push(unnamed.deliveredPerSecond / named.deliveredPerSecond);
      console.log(
        `pair ${pair + 1}: named emit ${Math.round(named.emitPerSecond)}/s drain ${Math.round(named.deliveredPerSecond)}/s; ` +
          `unnamed emit ${Math.round(unnamed.emitPerSecond)}/s drain ${Math.round(unnamed.deliveredPerSecond)}/s`,
      );
    }
    console.log(
      `unnamed/named, median of ${PAIRS} pairs: emit ${median(emitRatios).toFixed(2)}×, drain ${median(drainRatios).toFixed(2)}×`,
    );
  } finally {
    await receiver.close();
  }
}

await main();
