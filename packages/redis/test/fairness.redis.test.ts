import type { Claim, QueueEntry } from '@svc/webhooks-core';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRedisQueue, type RedisDeliveryQueue } from '../src/index';
import { describeRedis, listenOn, REDIS_URL, useTestRedis } from './redis-test-env';

const T0 = 1_700_000_000_000;
const LEASE = 30_000;

function countByAgency(claims: readonly Claim[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const claim of claims) counts[claim.agencyId] = (counts[claim.agencyId] ?? 0) + 1;
  return counts;
}

/** `count` entries of one agency, due one ms apart from `firstRunAt` on. */
function backlog(agencyId: string, count: number, firstRunAt: number): QueueEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    deliveryId: `${agencyId}-${index}`,
    agencyId,
    runAt: firstRunAt + index,
  }));
}

describeRedis('Redis queue: fair claims across agencies', () => {
  let redis: Redis;
  let prefix: string;
  let queue: RedisDeliveryQueue;

  useTestRedis('fairness', (client, fresh) => {
    redis = client;
    prefix = fresh;
  });
  beforeEach(() => {
    queue = createRedisQueue({ redis, prefix, wakeups: false });
  });
  afterEach(() => queue.close());

  const enqueueAll = (entries: readonly QueueEntry[]): Promise<unknown> =>
    Promise.all(entries.map((entry) => queue.enqueue(entry)));

  it('behind 2,000 earlier entries of one agency, a claim of 21 takes one entry of each of 21 agencies', async () => {
    await enqueueAll(backlog('deep', 2_000, T0 - 100_000));
    const others = Array.from({ length: 20 }, (_, index) => `agency-${index}`);
    await enqueueAll(others.map((agencyId) => ({ deliveryId: `${agencyId}-only`, agencyId, runAt: T0 })));
    const claims = await queue.claim({ limit: 21, leaseMs: LEASE, now: T0 });
    const expected = Object.fromEntries(['deep', ...others].map((agencyId) => [agencyId, 1]));
    expect(countByAgency(claims), 'entries per agency in the first claim of 21').toEqual(expected);
    expect(
      claims.find((claim) => claim.agencyId === 'deep')?.deliveryId,
      "the deep agency's earliest entry",
    ).toBe('deep-0');
    const next = await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 });
    expect(
      next.map((claim) => claim.deliveryId),
      'only the deep agency is left: its next entries, in due order',
    ).toEqual(['deep-1', 'deep-2', 'deep-3', 'deep-4', 'deep-5']);
  });

  it('deals in rounds, one entry per agency per round, earliest runAt first within each agency', async () => {
    await enqueueAll([
      { deliveryId: 'a1', agencyId: 'agency-a', runAt: T0 - 50 },
      { deliveryId: 'a3', agencyId: 'agency-a', runAt: T0 - 25 },
      { deliveryId: 'a2', agencyId: 'agency-a', runAt: T0 - 40 },
      { deliveryId: 'b1', agencyId: 'agency-b', runAt: T0 - 30 },
      { deliveryId: 'b2', agencyId: 'agency-b', runAt: T0 - 10 },
      { deliveryId: 'c1', agencyId: 'agency-c', runAt: T0 - 20 },
      { deliveryId: 'c2', agencyId: 'agency-c', runAt: T0 + 10 },
    ]);
    const claims = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
    expect(
      claims.map((claim) => claim.deliveryId),
      'agencies that became due together join the rotation earliest first',
    ).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('the rotation carries on across claims and across queue objects (worker processes)', async () => {
    const agencies = ['agency-a', 'agency-b', 'agency-c', 'agency-d'];
    await enqueueAll(agencies.flatMap((agencyId, index) => backlog(agencyId, 3, T0 - 1_000 * (4 - index))));
    const other = createRedisQueue({ redis: REDIS_URL, prefix, wakeups: false });
    try {
      const served: string[] = [];
      for (let turn = 0; turn < 12; turn += 1) {
        const claimer = turn % 2 === 0 ? queue : other;
        const [claim] = await claimer.claim({ limit: 1, leaseMs: LEASE, now: T0 });
        expect(claim, `claim ${turn + 1} of 12`).toBeDefined();
        served.push(claim?.agencyId ?? '');
      }
      expect(served, 'three full rounds, in the same order each time').toEqual([
        ...agencies,
        ...agencies,
        ...agencies,
      ]);
    } finally {
      await other.close();
    }
  });

  it('an excluded agency keeps its place: it is served first once no longer excluded', async () => {
    await enqueueAll([
      ...backlog('agency-a', 3, T0 - 300),
      ...backlog('agency-b', 3, T0 - 200),
      ...backlog('agency-c', 3, T0 - 100),
    ]);
    const whileExcluded = await queue.claim({
      limit: 2,
      leaseMs: LEASE,
      now: T0,
      excludeAgencies: ['agency-a'],
    });
    expect(whileExcluded.map((claim) => claim.agencyId)).toEqual(['agency-b', 'agency-c']);
    const [next] = await queue.claim({ limit: 1, leaseMs: LEASE, now: T0 });
    expect(next?.agencyId, 'the least recently served agency').toBe('agency-a');
  });

  it('agencies at their cap are set aside, so a claim finds the others however many are capped', async () => {
    const capped = Array.from({ length: 150 }, (_, index) => `hanging-${index}`);
    await enqueueAll(capped.flatMap((agencyId) => backlog(agencyId, 4, T0 - 1_000)));
    const first = await queue.claim({ limit: 400, leaseMs: LEASE, now: T0, perAgencyLimit: 2 });
    expect(first, 'two entries of each of the 150 agencies').toHaveLength(300);
    expect(await redis.hlen(queue.keys.capped), 'agencies set aside at their cap').toBe(150);
    expect(await redis.zcard(queue.keys.active), 'agencies left in the rotation').toBe(0);

    await queue.enqueue({ deliveryId: 'healthy-1', agencyId: 'healthy', runAt: T0 });
    const claims = await queue.claim({ limit: 1, leaseMs: LEASE, now: T0, perAgencyLimit: 2 });
    expect(claims.map((claim) => claim.deliveryId)).toEqual(['healthy-1']);

    const held = first.find((claim) => claim.agencyId === 'hanging-7') as Claim;
    expect(await queue.ack(held), 'ack of one of hanging-7’s leases').toBe(true);
    expect(await redis.hexists(queue.keys.capped, 'hanging-7'), 'hanging-7 is back in the rotation').toBe(0);
    const after = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0, perAgencyLimit: 2 });
    expect(after.map((claim) => claim.deliveryId)).toEqual(['hanging-7-2']);
  });

  it('an agency back from its cap is announced on the wake-up channel, as an enqueue is', async () => {
    const wakeups = await listenOn(redis, queue.keys.wakeChannel);
    const messages = wakeups.received;
    try {
      await enqueueAll(backlog('agency-a', 2, T0 - 10));
      const [held] = await queue.claim({ limit: 5, leaseMs: LEASE, now: T0, perAgencyLimit: 1 });
      expect(await redis.hexists(queue.keys.capped, 'agency-a'), 'agency-a is at its cap').toBe(1);
      expect(await queue.ack(held as Claim)).toBe(true);
      await expect.poll(() => messages, { timeout: 5_000 }).toContain('*agency-a');
      expect(messages, 'two enqueues (id and due time), then the agency back from its cap').toEqual([
        `agency-a-0 ${T0 - 10}`,
        `agency-a-1 ${T0 - 9}`,
        '*agency-a',
      ]);
    } finally {
      wakeups.close();
    }
  });

  it('enqueueMissing announces each agency it added entries for once, not each entry', async () => {
    const wakeups = await listenOn(redis, queue.keys.wakeChannel);
    const messages = wakeups.received;
    try {
      await queue.enqueue({ deliveryId: 'queued', agencyId: 'agency-c', runAt: T0 });
      const added = await queue.enqueueMissing([
        ...backlog('agency-a', 3, T0),
        ...backlog('agency-b', 2, T0),
        { deliveryId: 'queued', agencyId: 'agency-c', runAt: T0 },
      ]);
      expect(added, 'the entry already queued is left alone').toBe(5);
      await expect.poll(() => messages.length, { timeout: 5_000 }).toBe(3);
      expect(messages).toEqual([`queued ${T0}`, '*agency-a', '*agency-b']);
    } finally {
      wakeups.close();
    }
  });

  it('a claim visits a bounded number of agencies, then has the caller claim again at once', async () => {
    // A worker whose clock is ahead promotes 100 agencies; to a claim at an earlier time
    // none of them is due, and the one that is sits behind them in the rotation.
    const early = Array.from({ length: 100 }, (_, index) => `early-${index}`);
    const later = T0 + 3_600_000;
    await enqueueAll(early.map((agencyId) => ({ deliveryId: `${agencyId}-0`, agencyId, runAt: later })));
    await queue.claim({ limit: 1, leaseMs: LEASE, now: later, excludeAgencies: early });
    await queue.enqueue({ deliveryId: 'due-now', agencyId: 'late', runAt: T0 - 10 });

    expect(
      await queue.claim({ limit: 1, leaseMs: LEASE, now: T0 }),
      'the first claim stops on its bound',
    ).toEqual([]);
    expect(await redis.zcard(queue.keys.active), 'agencies it moved aside left the rotation').toBeLessThan(
      101,
    );
    // The wait returns at once, not when the early entries fall due (an hour on) or at its
    // timeout: either is longer than this test's own timeout.
    await queue.waitForWork({ timeoutMs: 600_000 });
    const claims = await queue.claim({ limit: 1, leaseMs: LEASE, now: T0 });
    expect(claims.map((claim) => claim.deliveryId)).toEqual(['due-now']);
  });

  it('an agency whose due entry is moved later leaves the rotation until its entries fall due', async () => {
    await queue.enqueue({ deliveryId: 'a1', agencyId: 'agency-a', runAt: T0 - 10 });
    await queue.enqueue({ deliveryId: 'a2', agencyId: 'agency-a', runAt: T0 + 500 });
    await queue.enqueue({ deliveryId: 'b1', agencyId: 'agency-b', runAt: T0 - 5 });
    const [b1] = await queue.claim({ limit: 5, leaseMs: LEASE, now: T0, excludeAgencies: ['agency-a'] });
    expect(b1?.deliveryId).toBe('b1');
    expect(await redis.zscore(queue.keys.active, 'agency-a'), 'agency-a joined the rotation').not.toBeNull();
    await queue.enqueue({ deliveryId: 'a1', agencyId: 'agency-a', runAt: T0 + 1_000 });
    expect(await redis.zscore(queue.keys.active, 'agency-a'), 'agency-a left the rotation').toBeNull();
    expect(await redis.zscore(queue.keys.ready, 'agency-a'), 'waiting for its earliest entry').toBe(
      String(T0 + 500),
    );
    expect(await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 }), 'nothing is due').toEqual([]);
    const claims = await queue.claim({ limit: 5, leaseMs: LEASE, now: T0 + 1_000 });
    expect(claims.map((claim) => [claim.deliveryId, claim.runAt])).toEqual([
      ['a2', T0 + 500],
      ['a1', T0 + 1_000],
    ]);
  });
});
