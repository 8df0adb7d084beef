import type { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRedisQueue, type RedisDeliveryQueue } from '../src/index';
import { commandCounter, describeRedis, keysUnder, REDIS_URL, useTestRedis } from './redis-test-env';

const T0 = 1_700_000_000_000;
const LEASE = 30_000;

describeRedis('Redis queue: backend-specific behaviour', () => {
  let redis: Redis;
  let prefix: string;
  let queue: RedisDeliveryQueue;

  useTestRedis('queue', (client, fresh) => {
    redis = client;
    prefix = fresh;
  });
  beforeEach(() => {
    queue = createRedisQueue({ redis, prefix });
  });
  afterEach(() => queue.close());

  /** Opens the queue's wake-up subscription (the first wait does) and waits until Redis counts it. */
  const untilSubscribed = async (): Promise<void> => {
    await queue.waitForWork({ timeoutMs: 50 });
    await expect
      .poll(async () => {
        await queue.waitForWork({ timeoutMs: 10 });
        return (await redis.pubsub('NUMSUB', queue.keys.wakeChannel))[1];
      })
      .toBe(1);
  };

  /** Runs `use` with another process's queue on the same prefix (its own connection), then closes it. */
  const withOtherProcess = async (use: (other: RedisDeliveryQueue) => Promise<void>): Promise<void> => {
    const other = createRedisQueue({ redis: REDIS_URL, prefix });
    try {
      await use(other);
    } finally {
      await other.close();
    }
  };

  it('keeps every key under the prefix and the {queue} hash tag, and leaves no key behind after the last ack', async () => {
    await queue.enqueue({ deliveryId: 'd1', agencyId: 'agency-a', runAt: T0 });
    const keys = await keysUnder(redis, prefix);
    expect(keys).toEqual(
      [`${prefix}{queue}:agencies`, `${prefix}{queue}:due:agency-a`, `${prefix}{queue}:ready`].sort(),
    );
    const [claim] = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
    expect(await keysUnder(redis, prefix)).toEqual(
      [
        `${prefix}{queue}:agencies`,
        `${prefix}{queue}:claims`,
        `${prefix}{queue}:held`,
        `${prefix}{queue}:leases`,
      ].sort(),
    );
    expect(await queue.ack(claim!)).toBe(true);
    expect(await keysUnder(redis, prefix), 'keys after the ack').toEqual([]);
  });

  it('claims in due order across agencies and reports the runAt each entry had', async () => {
    await queue.enqueue({ deliveryId: 'late', agencyId: 'agency-a', runAt: T0 - 10 });
    await queue.enqueue({ deliveryId: 'early', agencyId: 'agency-b', runAt: T0 - 30 });
    await queue.enqueue({ deliveryId: 'middle', agencyId: 'agency-a', runAt: T0 - 20 });
    await queue.enqueue({ deliveryId: 'future', agencyId: 'agency-b', runAt: T0 + 1 });
    const claims = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
    expect(claims.map((claim) => [claim.deliveryId, claim.runAt])).toEqual(
      expect.arrayContaining([
        ['early', T0 - 30],
        ['middle', T0 - 20],
        ['late', T0 - 10],
      ]),
    );
    expect(claims[0]?.deliveryId, 'the agency with the earliest entry comes first').toBe('early');
    expect(claims).toHaveLength(3);
    expect(new Set(claims.map((claim) => claim.leaseUntil))).toEqual(new Set([T0 + LEASE]));
  });

  it('waitForWork wakes when a scheduled entry falls due by the queue clock, without any enqueue', async () => {
    await queue.enqueue({ deliveryId: 'soon', agencyId: 'agency-a', runAt: Date.now() + 200 });
    const started = Date.now();
    await queue.waitForWork({ timeoutMs: 20_000 });
    expect(Date.now() - started, 'woken well before the 20 s timeout').toBeLessThan(10_000);
    const claims = await queue.claim({ limit: 1, leaseMs: LEASE, now: Date.now() });
    expect(claims.map((claim) => claim.deliveryId)).toEqual(['soon']);
  });

  it('skips an excluded agency in one step even behind a backlog of 5,000 of its entries', async () => {
    await Promise.all(
      Array.from({ length: 5_000 }, (_, index) =>
        queue.enqueue({ deliveryId: `busy-${index}`, agencyId: 'busy', runAt: T0 - 10_000 + index }),
      ),
    );
    await queue.enqueue({ deliveryId: 'quiet-1', agencyId: 'quiet', runAt: T0 });
    const claims = await queue.claim({ limit: 5, leaseMs: LEASE, now: T0, excludeAgencies: ['busy'] });
    expect(claims.map((claim) => claim.deliveryId)).toEqual(['quiet-1']);
    expect(await queue.counts()).toEqual({ queued: 5_000, claimed: 1 });
  });

  it('an expired lease returns the entry with its original runAt and a new claim id; the old claim id stops working', async () => {
    await queue.enqueue({ deliveryId: 'd1', agencyId: 'agency-a', runAt: T0 - 5 });
    const [first] = await queue.claim({ limit: 1, leaseMs: 1_000, now: T0 });
    expect(await queue.claim({ limit: 1, leaseMs: 1_000, now: T0 + 999 }), 'lease still live').toEqual([]);
    const [second] = await queue.claim({ limit: 1, leaseMs: 1_000, now: T0 + 1_000 });
    expect(second).toMatchObject({ deliveryId: 'd1', runAt: T0 - 5, leaseUntil: T0 + 2_000 });
    expect(second?.claimId).not.toBe(first?.claimId);
    expect(await queue.ack(first!), 'stale ack').toBe(false);
    expect(await queue.renew(first!, 1_000, T0 + 1_500), 'stale renew').toBe(false);
    expect(await queue.reschedule(first!, T0), 'stale reschedule').toBe(false);
    expect(await queue.ack(second!)).toBe(true);
  });

  it('carries on after the server forgot its scripts (SCRIPT FLUSH, as after a restart)', async () => {
    await queue.enqueue({ deliveryId: 'd1', agencyId: 'agency-a', runAt: T0 });
    await redis.script('FLUSH');
    const [claim] = await queue.claim({ limit: 1, leaseMs: LEASE, now: T0 });
    expect(claim?.deliveryId).toBe('d1');
    await redis.script('FLUSH');
    expect(await queue.ack(claim!)).toBe(true);
  });

  it('enqueueMissing adds absent entries only, leaving queued and claimed ones (and their claims) untouched', async () => {
    await queue.enqueue({ deliveryId: 'queued', agencyId: 'agency-a', runAt: T0 - 100 });
    await queue.enqueue({ deliveryId: 'held', agencyId: 'agency-a', runAt: T0 - 200 });
    const [held] = await queue.claim({ limit: 1, leaseMs: LEASE, now: T0 });
    expect(held?.deliveryId).toBe('held');
    const added = await queue.enqueueMissing([
      { deliveryId: 'queued', agencyId: 'agency-a', runAt: T0 - 1 },
      { deliveryId: 'held', agencyId: 'agency-a', runAt: T0 - 1 },
      { deliveryId: 'lost', agencyId: 'agency-b', runAt: T0 - 50 },
    ]);
    expect(added).toBe(1);
    expect(await queue.renew(held!, LEASE, T0), 'the live claim survived').toBe(true);
    const claims = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
    expect(claims.map((claim) => [claim.deliveryId, claim.runAt])).toEqual([
      ['queued', T0 - 100],
      ['lost', T0 - 50],
    ]);
  });

  it('waitForWork wakes on an enqueue made through another connection (another process)', async () => {
    await withOtherProcess(async (other) => {
      // Subscribe first: the first wait opens the subscriber connection.
      await queue.waitForWork({ timeoutMs: 50 });
      await queue.waitForWork({ timeoutMs: 50 });
      const started = Date.now();
      const waiting = queue.waitForWork({ timeoutMs: 20_000 });
      setTimeout(() => void other.enqueue({ deliveryId: 'd1', agencyId: 'agency-a', runAt: T0 }), 100);
      await waiting;
      expect(Date.now() - started, 'woken well before the 20 s timeout').toBeLessThan(10_000);
    });
  });

  it('waitForWork wakes on a delivery enqueued again right after this process claimed it (a replay)', async () => {
    await withOtherProcess(async (other) => {
      await untilSubscribed();
      await queue.enqueue({ deliveryId: 'd1', agencyId: 'agency-a', runAt: T0 });
      await queue.waitForWork({ timeoutMs: 5_000 });
      const [claim] = await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 });
      expect(await queue.ack(claim!)).toBe(true);
      // Replayed from elsewhere a moment later: a new entry for the same delivery.
      const started = Date.now();
      const waiting = queue.waitForWork({ timeoutMs: 20_000 });
      setTimeout(() => void other.enqueue({ deliveryId: 'd1', agencyId: 'agency-a', runAt: T0 + 5 }), 100);
      await waiting;
      expect(Date.now() - started, 'woken by the replay, well before the 20 s timeout').toBeLessThan(10_000);
      const claims = await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 + 5 });
      expect(claims.map((entry) => entry.deliveryId)).toEqual(['d1']);
    });
  });

  it('answers the claim right after a short one locally, until a wake-up says something was enqueued', async () => {
    await withOtherProcess(async (other) => {
      await untilSubscribed();
      await queue.enqueue({ deliveryId: 'first', agencyId: 'agency-a', runAt: T0 });
      await queue.waitForWork({ timeoutMs: 1_000 });
      expect(await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 })).toHaveLength(1);
      const counter = commandCounter(redis);
      expect(await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 }), 'the claim right after').toEqual([]);
      expect(counter.count(), 'commands sent for it').toBe(0);
      counter.stop();
      await other.enqueue({ deliveryId: 'second', agencyId: 'agency-a', runAt: T0 });
      await queue.waitForWork({ timeoutMs: 5_000 });
      const claims = await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 });
      expect(
        claims.map((claim) => claim.deliveryId),
        'after the wake-up',
      ).toEqual(['second']);
    });
  });

  it('a wait that a wake-up ended is followed by a real claim, even right after an empty one', async () => {
    // The worker keeps one wait outstanding while it claims. Here an empty claim is made
    // while that wait is out; an enqueue then ends the wait, and the claim that follows
    // within the shortcut's few ms must go to Redis, not be answered "surely empty".
    await withOtherProcess(async (other) => {
      await untilSubscribed();
      const outstanding = queue.waitForWork({ timeoutMs: 5_000 });
      expect(await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 }), 'nothing queued yet').toEqual([]);
      await other.enqueue({ deliveryId: 'arrived', agencyId: 'agency-a', runAt: T0 });
      await outstanding;
      const claims = await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 });
      expect(claims.map((claim) => claim.deliveryId)).toEqual(['arrived']);
    });
  });

  it('waitForWork resolves at once on an aborted signal and after close', async () => {
    const controller = new AbortController();
    const waiting = queue.waitForWork({ timeoutMs: 60_000, signal: controller.signal });
    controller.abort();
    await waiting;
    await queue.close();
    await queue.waitForWork({ timeoutMs: 60_000 });
  });

  it('rejects a host transaction with transactions_unsupported and writes nothing', async () => {
    await expect(
      queue.enqueue({ deliveryId: 'd1', agencyId: 'agency-a', runAt: T0 }, { transaction: {} }),
    ).rejects.toMatchObject({ code: 'transactions_unsupported' });
    expect(await keysUnder(redis, prefix)).toEqual([]);
  });

  it('two prefixes on one Redis never see each other’s entries', async () => {
    const neighbour = createRedisQueue({ redis, prefix: `${prefix}other:` });
    await neighbour.enqueue({ deliveryId: 'theirs', agencyId: 'agency-a', runAt: T0 });
    await queue.enqueue({ deliveryId: 'ours', agencyId: 'agency-a', runAt: T0 });
    const claims = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
    expect(claims.map((claim) => claim.deliveryId)).toEqual(['ours']);
    await neighbour.close();
  });

  it('close() leaves an injected client open and quits a client it opened itself', async () => {
    await queue.close();
    expect(await redis.ping(), 'the injected client still works').toBe('PONG');
    const owned = createRedisQueue({ redis: REDIS_URL, prefix });
    await owned.enqueue({ deliveryId: 'd1', agencyId: 'agency-a', runAt: T0 });
    await owned.close();
    await owned.close();
    await expect(owned.enqueue({ deliveryId: 'd2', agencyId: 'agency-a', runAt: T0 })).rejects.toThrow();
  });
});
