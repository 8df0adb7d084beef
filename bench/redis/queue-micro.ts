/**
 * Queue-only micro-benchmark behind the design choice in docs/redis.md: how fast
 * can one process move N entries through enqueue → claim → ack on (a) our Lua
 * scripts over sorted sets and (b) BullMQ (add → worker → complete), with the
 * same concurrency and a no-op job. Part of `pnpm --filter @svc/bench run redis`.
 */
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisQueue } from '../../packages/redis/src/index';
import { REDIS_URL } from './bench-setup';

/** Entries moved per second: onto the queue, and through claim + ack. */
export interface QueueRate {
  enqueuePerSec: number;
  drainPerSec: number;
}

/** Lua queue: entries claimed in batches as slots free, acked one by one, like the core worker does. */
export async function measureLuaQueue(
  redis: Redis,
  prefix: string,
  count: number,
  concurrency: number,
): Promise<QueueRate> {
  const queue = createRedisQueue({ redis, prefix, wakeups: false });
  const now = Date.now();
  let started = performance.now();
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      queue.enqueue({ deliveryId: `d${index}`, agencyId: `agency-${index % 10}`, runAt: now }),
    ),
  );
  const enqueueMs = performance.now() - started;
  started = performance.now();
  let done = 0;
  let inFlight = 0;
  let claiming = false;
  let wanted = false;
  await new Promise<void>((resolve, reject) => {
    // One claim at a time, as the core worker does; an ack that frees a slot while
    // a claim is running asks for another round rather than being dropped.
    const pump = async (): Promise<void> => {
      wanted = true;
      if (claiming) return;
      claiming = true;
      try {
        while (wanted) {
          wanted = false;
          await claimWhileFree();
        }
      } finally {
        claiming = false;
      }
    };
    const claimWhileFree = async (): Promise<void> => {
      while (done < count) {
        const free = concurrency - inFlight;
        if (free < concurrency / 8) return;
        const claims = await queue.claim({ limit: free, leaseMs: 30_000, now: Date.now() });
        if (claims.length === 0) return;
        for (const claim of claims) {
          inFlight++;
          queue
            .ack(claim)
            .then(() => {
              inFlight--;
              done++;
              if (done === count) resolve();
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
  return { enqueuePerSec: (count / enqueueMs) * 1000, drainPerSec: (count / drainMs) * 1000 };
}

/** BullMQ: one job per entry, a worker with the same concurrency and a no-op processor. */
export async function measureBullmqQueue(
  prefix: string,
  count: number,
  concurrency: number,
): Promise<QueueRate> {
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null };
  const queue = new Queue('micro', { connection, prefix });
  let started = performance.now();
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      queue.add('d', { deliveryId: `d${index}` }, { removeOnComplete: true, removeOnFail: true }),
    ),
  );
  const enqueueMs = performance.now() - started;
  started = performance.now();
  let done = 0;
  await new Promise<void>((resolve) => {
    const worker = new Worker('micro', async () => {}, { connection, prefix, concurrency: concurrency });
    worker.on('completed', () => {
      done++;
      if (done === count) void worker.close().then(resolve);
    });
  });
  const drainMs = performance.now() - started;
  await queue.close();
  return { enqueuePerSec: (count / enqueueMs) * 1000, drainPerSec: (count / drainMs) * 1000 };
}
