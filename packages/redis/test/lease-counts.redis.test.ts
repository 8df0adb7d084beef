import type { Claim, DeliveryUpdate } from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createRedisQueue,
  createRedisWebhooks,
  type RedisDeliveryQueue,
  type RedisQueueKeyNames,
} from '../src/index';
import { describeRedis, useTestRedis } from './redis-test-env';

const T0 = 1_700_000_000_000;
const LEASE = 30_000;

/**
 * The per-agency lease counts the queue keeps: in `keys.held`, or in `keys.capped`
 * for an agency set aside at its cap (never in both).
 */
async function heldCounts(redis: Redis, keys: RedisQueueKeyNames): Promise<Record<string, number>> {
  const [held, capped] = await Promise.all([redis.hgetall(keys.held), redis.hgetall(keys.capped)]);
  const both = Object.keys(held).filter((agency) => agency in capped);
  expect(both, 'agencies counted in held and in capped').toEqual([]);
  return Object.fromEntries(
    Object.entries({ ...held, ...capped }).map(([agency, count]) => [agency, Number(count)]),
  );
}

/** The same counts worked out from the claimed entries themselves (`claims` and `agencies`). */
async function claimedCounts(redis: Redis, keys: RedisQueueKeyNames): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const deliveryId of await redis.hkeys(keys.claims)) {
    const agency = (await redis.hget(keys.agencies, deliveryId)) ?? '(no agency)';
    counts[agency] = (counts[agency] ?? 0) + 1;
  }
  return counts;
}

/** Asserts the kept counts equal `expected` and what the claimed entries say. */
async function expectHeld(
  redis: Redis,
  keys: RedisQueueKeyNames,
  expected: Record<string, number>,
  step: string,
) {
  expect(await heldCounts(redis, keys), `lease counts after ${step}`).toEqual(expected);
  expect(await claimedCounts(redis, keys), `claimed entries after ${step}`).toEqual(expected);
}

function byAgency(claims: readonly Claim[], agencyId: string): Claim[] {
  return claims.filter((claim) => claim.agencyId === agencyId);
}

function attempt(overrides: Partial<DeliveryUpdate>): DeliveryUpdate {
  return {
    status: 'pending',
    attempt: 1,
    maxAttempts: 5,
    nextRetryAt: null,
    lastAttemptAt: T0,
    deliveredAt: null,
    lastResponseCode: 500,
    lastErrorMessage: 'HTTP 500',
    lastResponseExcerpt: null,
    nextAttemptTrigger: 'automatic',
    ...overrides,
  };
}

describeRedis('Redis queue: per-agency lease counts stay exact', () => {
  let redis: Redis;
  let prefix: string;
  let queue: RedisDeliveryQueue;

  useTestRedis('lease-counts', (client, fresh) => {
    redis = client;
    prefix = fresh;
  });
  beforeEach(() => {
    queue = createRedisQueue({ redis, prefix, wakeups: false });
  });
  afterEach(() => queue.close());

  const seed = async (agencyId: string, count: number): Promise<void> => {
    for (let index = 0; index < count; index += 1) {
      await queue.enqueue({ deliveryId: `${agencyId}-${index}`, agencyId, runAt: T0 - 100 + index });
    }
  };

  it('through claim, ack (a stale one too), reschedule and enqueue over a claim', async () => {
    await seed('agency-a', 4);
    await seed('agency-b', 2);
    const claims = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
    await expectHeld(redis, queue.keys, { 'agency-a': 4, 'agency-b': 2 }, 'the claim');

    const [a0, a1, a2, a3] = byAgency(claims, 'agency-a') as [Claim, Claim, Claim, Claim];
    expect(await queue.ack(a0)).toBe(true);
    expect(await queue.ack(a0), 'the same ack again').toBe(false);
    expect(await queue.ack({ ...a1, claimId: 'made-up' }), 'an ack with a made-up claim id').toBe(false);
    await expectHeld(redis, queue.keys, { 'agency-a': 3, 'agency-b': 2 }, 'acks');

    expect(await queue.reschedule(a1, T0 + 60_000)).toBe(true);
    await expectHeld(redis, queue.keys, { 'agency-a': 2, 'agency-b': 2 }, 'a reschedule');

    await queue.enqueue({ deliveryId: a2.deliveryId, agencyId: 'agency-a', runAt: T0 });
    await queue.enqueue({ deliveryId: a3.deliveryId, agencyId: 'agency-c', runAt: T0 });
    await expectHeld(redis, queue.keys, { 'agency-b': 2 }, 'enqueues over two claims (one moving agency)');

    const again = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
    expect(countOf(again)).toEqual({ 'agency-a': 1, 'agency-c': 1 });
    await expectHeld(redis, queue.keys, { 'agency-a': 1, 'agency-b': 2, 'agency-c': 1 }, 'the second claim');

    expect(await queue.enqueueMissing([{ deliveryId: a2.deliveryId, agencyId: 'agency-a', runAt: T0 }])).toBe(
      0,
    );
    await expectHeld(redis, queue.keys, { 'agency-a': 1, 'agency-b': 2, 'agency-c': 1 }, 'enqueueMissing');

    for (const claim of [...byAgency(claims, 'agency-b'), ...again])
      expect(await queue.ack(claim)).toBe(true);
    await expectHeld(redis, queue.keys, {}, 'every ack');
    expect(await redis.exists(queue.keys.held, queue.keys.capped), 'no count left behind').toBe(0);
  });

  it('through expired-lease recovery, and a capped agency comes back when its lease expires', async () => {
    await seed('agency-a', 5);
    const first = await queue.claim({ limit: 10, leaseMs: 1_000, now: T0, perAgencyLimit: 2 });
    expect(first.map((claim) => claim.deliveryId)).toEqual(['agency-a-0', 'agency-a-1']);
    expect(await redis.hexists(queue.keys.capped, 'agency-a'), 'agency-a is at its cap').toBe(1);
    await expectHeld(redis, queue.keys, { 'agency-a': 2 }, 'the claim');

    const later = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 + 1_000, perAgencyLimit: 3 });
    expect(
      later.map((claim) => claim.deliveryId),
      'both leases expired and returned: the earliest three entries',
    ).toEqual(['agency-a-0', 'agency-a-1', 'agency-a-2']);
    await expectHeld(redis, queue.keys, { 'agency-a': 3 }, 'recovery and a new claim');
    expect(await queue.ack(first[0] as Claim), 'the expired claim id').toBe(false);
    await expectHeld(redis, queue.keys, { 'agency-a': 3 }, 'a stale ack');
  });

  it('an ack of a claim taken before claims carried their agency, or before leases were counted, still works', async () => {
    await seed('agency-a', 2);
    const [first, second] = await queue.claim({ limit: 2, leaseMs: LEASE, now: T0 });
    const value = await redis.hget(queue.keys.claims, first!.deliveryId);
    expect(value, 'claimId runAt agencyId').toBe(`${first!.claimId} ${T0 - 100} agency-a`);
    await redis.hset(queue.keys.claims, first!.deliveryId, `${first!.claimId} ${T0 - 100}`);
    expect(await queue.ack(first!)).toBe(true);
    await expectHeld(redis, queue.keys, { 'agency-a': 1 }, 'the ack of the claim without its agency');

    await redis.hdel(queue.keys.held, 'agency-a');
    expect(await queue.ack(second!)).toBe(true);
    await expectHeld(redis, queue.keys, {}, 'the ack of a claim that was never counted');
    expect(await redis.zscore(queue.keys.active, 'agency-a'), 'not brought into the rotation').toBeNull();
  });

  it('through the linked store: insert, a recorded retry, a recorded success and a replay', async () => {
    const linked = createRedisWebhooks({ redis, prefix, wakeups: false });
    try {
      const [retried, succeeded, failed] = [1, 2, 3].map(() =>
        makeDeliveryRecord({ agencyId: 'agency-a', nextRetryAt: T0 }),
      ) as [
        ReturnType<typeof makeDeliveryRecord>,
        ReturnType<typeof makeDeliveryRecord>,
        ReturnType<typeof makeDeliveryRecord>,
      ];
      for (const record of [retried, succeeded, failed]) await linked.store.insertDelivery(record);
      await expectHeld(redis, linked.queue.keys, {}, 'inserts');
      const claims = await linked.queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
      expect(claims).toHaveLength(3);
      await expectHeld(redis, linked.queue.keys, { 'agency-a': 3 }, 'the claim');

      const expected = { status: 'pending', attempt: 0 } as const;
      await linked.store.updateDelivery(retried.id, expected, attempt({ nextRetryAt: T0 + 60_000 }));
      await expectHeld(redis, linked.queue.keys, { 'agency-a': 2 }, 'a retry recorded');
      await linked.store.updateDelivery(
        succeeded.id,
        expected,
        attempt({ status: 'success', lastResponseCode: 200 }),
      );
      await expectHeld(redis, linked.queue.keys, { 'agency-a': 1 }, 'a success recorded');
      await linked.store.updateDelivery(failed.id, expected, attempt({ status: 'failed', attempt: 1 }));
      await expectHeld(redis, linked.queue.keys, {}, 'a failure recorded');

      await linked.store.updateDelivery(
        failed.id,
        { status: 'failed', attempt: 1 },
        attempt({ status: 'pending', attempt: 1, nextRetryAt: T0 }),
      );
      const [replayed] = await linked.queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
      expect(replayed?.deliveryId, 'the replay is queued again').toBe(failed.id);
      await expectHeld(redis, linked.queue.keys, { 'agency-a': 1 }, 'the replay claimed');
    } finally {
      await linked.close();
    }
  });
});

function countOf(claims: readonly Claim[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const claim of claims) counts[claim.agencyId] = (counts[claim.agencyId] ?? 0) + 1;
  return counts;
}
