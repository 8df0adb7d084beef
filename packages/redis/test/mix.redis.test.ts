import { jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { createMemoryStore, type WebhookStore } from '@svc/webhooks-core';
import { createPgStore, migrate } from '@svc/webhooks-pg';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedisQueue, createRedisStore, type RedisDeliveryQueue } from '../src/index';
import { connectTestRedis, describeRedis, redisReachable, removeKeys, uniquePrefix } from './redis-test-env';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether PostgreSQL answers; outside CI its combination is skipped loudly, with CI=true it fails. */
async function probePostgres(): Promise<boolean> {
  if (!redisReachable) return false;
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch (error) {
    const message = `PostgreSQL is unreachable at ${DATABASE_URL} (${(error as Error).message}).`;
    if (process.env.CI === 'true')
      throw new Error(`${message} CI=true: the Redis queue + PostgreSQL store test must run.`);
    console.warn(`\n!!! ${message} SKIPPING the Redis queue + PostgreSQL store combination.\n`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const postgresReachable = await probePostgres();

/** A store for one test and how to remove what it created. */
interface StoreUnderTest {
  store: WebhookStore;
  cleanup: () => Promise<void>;
}

interface Combination {
  name: string;
  available: boolean;
  open: (redis: Redis, prefix: string) => Promise<StoreUnderTest>;
}

let pool: pg.Pool | null = null;

const combinations: Combination[] = [
  {
    name: 'Redis store',
    available: true,
    open: async (redis, prefix) => ({ store: createRedisStore({ redis, prefix }), cleanup: async () => {} }),
  },
  {
    name: 'memory store',
    available: true,
    open: async () => ({ store: createMemoryStore(), cleanup: async () => {} }),
  },
  {
    name: 'PostgreSQL store',
    available: postgresReachable,
    open: async () => {
      pool ??= new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
      const schema = `whk_redis_mix_${Math.random().toString(16).slice(2, 10)}`;
      await migrate({ pool, schema });
      const store = createPgStore({ pool, schema });
      return {
        store,
        cleanup: async () => void (await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)),
      };
    },
  },
];

describeRedis('the Redis queue with each store', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = connectTestRedis();
  });
  afterAll(async () => {
    await redis.quit();
    await pool?.end();
  });

  for (const combination of combinations) {
    describe.skipIf(!combination.available)(`Redis queue + ${combination.name}`, () => {
      let prefix: string;
      let queue: RedisDeliveryQueue;
      let opened: StoreUnderTest;
      let harness: ServiceHarness;

      beforeEach(async () => {
        prefix = uniquePrefix('mix');
        queue = createRedisQueue({ redis, prefix });
        opened = await combination.open(redis, prefix);
        harness = await startServiceHarness({
          store: () => opened.store,
          queue: () => queue,
          worker: { pollIntervalMs: 50, recoverySweep: false },
        });
      });
      afterEach(async () => {
        await harness.close();
        await queue.close();
        await opened.cleanup();
        await removeKeys(redis, prefix);
      });

      it('delivers 40 events of 4 agencies to a real HTTPS receiver, each exactly once, all recorded as success', async () => {
        const agencies = ['agency-1', 'agency-2', 'agency-3', 'agency-4'];
        for (const agency of agencies) await harness.configure(agency);
        const emitted = await Promise.all(
          Array.from({ length: 40 }, (_, index) =>
            harness.webhooks.emit(jobCancelled(agencies[index % 4]!, index)),
          ),
        );
        const deliveryIds = emitted.map((result) => result?.deliveryId);
        await harness.receiver.waitForRequests(40, 15_000);
        for (const [index, id] of deliveryIds.entries()) {
          await harness.waitForStatus(agencies[index % 4]!, id!, 'success');
        }
        expect(harness.receivedIds().sort()).toEqual(deliveryIds.map((id) => `whdel_${id}`).sort());
        expect(await queue.counts(), 'the queue is empty once everything is delivered').toEqual({
          queued: 0,
          claimed: 0,
        });
      });

      it('retries a 500 through the queue, then a replayed failure arrives once more as the next attempt', async () => {
        await harness.configure('agency-1');
        let answers = 0;
        harness.receiver.respond(() => ({ status: ++answers === 1 ? 500 : 200 }));
        const retried = await harness.webhooks.emit(jobCancelled('agency-1', 1));
        await harness.waitForStatus('agency-1', retried!.deliveryId, 'success');
        expect((await harness.webhooks.getDelivery('agency-1', retried!.deliveryId)).attempt).toBe(2);

        harness.receiver.respond(() => ({ status: 503 }));
        const failing = await harness.webhooks.emit(jobCancelled('agency-1', 2));
        await harness.waitForStatus('agency-1', failing!.deliveryId, 'failed');
        harness.receiver.respond(() => ({ status: 200 }));
        await harness.webhooks.replay('agency-1', failing!.deliveryId);
        await harness.waitForStatus('agency-1', failing!.deliveryId, 'success');
        const detail = await harness.webhooks.getDelivery('agency-1', failing!.deliveryId);
        expect(detail.attempt, 'five failed attempts, then the replayed sixth').toBe(6);
        expect(harness.receivedIds().filter((id) => id === `whdel_${failing!.deliveryId}`)).toHaveLength(6);
      });
    });
  }
});
