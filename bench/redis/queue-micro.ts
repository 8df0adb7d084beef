/**
 * Queue-only micro-benchmark behind the design choice in docs/redis.md: how fast
 * can one process move N entries through enqueue → claim → ack on (a) our Lua
 * scripts over sorted sets and (b) BullMQ (add → worker → complete), with the
 * same concurrency and a no-op job. Run: `pnpm --filter @svc/bench run redis:queue`.
 */
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createRedisQueue } from '../../packages/redis/src/index';
import { removeKeysUnder } from './redis-keys';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.N ?? 20_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 64);

/** Lua queue: entries claimed in batches as slots free, acked one by one, like the core worker does. */
async function runLua(redis: Redis, prefix: string): Promise<{ enqueuePerSec: number; drainPerSec: number }> {
  const queue = createRedisQueue({ redis, prefix, wakeups: false });
  const now = Date.now();
  let started = performance.now();
  await Promise.all(
    Array.from({ length: N }, (_, index) =>
      queue.enqueue({ deliveryId: `d${index}`, agencyId: `agency-${index % 10}`, runAt: now }),
    ),
  );
  const enqueueMs = performance.now() - started;
  started = performance.now();
  let done = 0;
  let inFlight = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = async (): Promise<void> => {
      while (done < N) {
        const free = CONCURRENCY - inFlight;
        if (free < CONCURRENCY / 8) return;
        const claims = await queue.claim({ limit: free, leaseMs: 30_000, now: Date.now() });
        if (claims.length === 0) return;
        for (const claim of claims) {
          inFlight++;
          queue
            .ack(claim)
            .then(() => {
              inFlight--;
              done++;
              if (done === N) resolve();
              else void pump().catch(reject);
            })
            .catch(reject);
        }
      }
    };
    void pump().catch(reject);
  });
  const drainMs = performance.now() - started;
  await queue.close();
  return { enqueuePerSec: (N / enqueueMs) * 1000, drainPerSec: (N / drainMs) * 1000 };
}

/** BullMQ: one job per entry, a worker with the same concurrency and a no-op processor. */
async function runBullmq(prefix: string): Promise<{ enqueuePerSec: number; drainPerSec: number }> {
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null };
  const queue = new Queue('micro', { connection, prefix });
  let started = performance.now();
  await Promise.all(
    Array.from({ length: N }, (_, index) =>
      queue.add('d', { deliveryId: `d${index}` }, { removeOnComplete: true, removeOnFail: true }),
    ),
  );
  const enqueueMs = performance.now() - started;
  started = performance.now();
  let done = 0;
  await new Promise<void>((resolve) => {
    const worker = new Worker('micro', async () => {}, { connection, prefix, concurrency: CONCURRENCY });
    worker.on('completed', () => {
      done++;
      if (done === N) void worker.close().then(resolve);
    });
  });
  const drainMs = performance.now() - started;
  await queue.close();
  return { enqueuePerSec: (N / enqueueMs) * 1000, drainPerSec: (N / drainMs) * 1000 };
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const prefix = `whk-bench:${randomBytes(4).toString('hex')}:`;
  try {
    const rounds = Number(process.env.ROUNDS ?? 3);
    for (let round = 1; round <= rounds; round++) {
      const lua = await runLua(redis, `${prefix}lua${round}:`);
      const bull = await runBullmq(`${prefix}bull${round}`);
      console.log(
        `round ${round}: N=${N} c=${CONCURRENCY} | Lua enqueue ${lua.enqueuePerSec.toFixed(0)}/s, claim+ack ${lua.drainPerSec.toFixed(0)}/s` +
          ` | BullMQ add ${bull.enqueuePerSec.toFixed(0)}/s, process ${bull.drainPerSec.toFixed(0)}/s` +
          ` | ratio Lua/BullMQ drain ${(lua.drainPerSec / bull.drainPerSec).toFixed(2)}x`,
      );
    }
  } finally {
    await removeKeysUnder(redis, prefix);
    await redis.quit();
  }
}

await main();
