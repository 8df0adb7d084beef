import { createRecoverySweep } from '@svc/webhooks-core';
import { makeDeliveryRecord as makeRecord } from '@svc/webhooks-core/testing';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createRedisQueue,
  createRedisStore,
  type RedisDeliveryQueue,
  type RedisWebhookStore,
} from '../src/index';
import { describeRedis, useTestRedis } from './redis-test-env';

const T0 = 1_700_000_000_000;
const GRACE = 60_000;
const LEASE = 30_000;

describeRedis('createRecoverySweep (core) on the Redis queue: re-enqueues entries lost', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisWebhookStore;
  let queue: RedisDeliveryQueue;

  useTestRedis('sweep', (client, fresh) => {
    redis = client;
    prefix = fresh;
  });
  beforeEach(() => {
    store = createRedisStore({ redis, prefix });
    queue = createRedisQueue({ redis, prefix, wakeups: false });
  });
  afterEach(async () => {
    await queue.close();
    await store.close();
  });

  /** Deliveries in every situation a sweep meets, all in the store. */
  async function scenario() {
    const lost = [
      makeRecord({ agencyId: 'agency-a', nextRetryAt: T0 - 5 * GRACE }),
      makeRecord({ agencyId: 'agency-b', nextRetryAt: T0 - 2 * GRACE }),
    ];
    const queued = makeRecord({ agencyId: 'agency-a', nextRetryAt: T0 - 3 * GRACE });
    const held = makeRecord({ agencyId: 'agency-a', nextRetryAt: T0 - 4 * GRACE });
    const recentlyLost = makeRecord({ agencyId: 'agency-a', nextRetryAt: T0 - GRACE / 2 });
    const finished = makeRecord({ agencyId: 'agency-a', status: 'success', nextRetryAt: null });
    for (const record of [...lost, queued, held, recentlyLost, finished]) await store.insertDelivery(record);
    await queue.enqueue({ deliveryId: queued.id, agencyId: queued.agencyId, runAt: T0 + GRACE });
    await queue.enqueue({ deliveryId: held.id, agencyId: held.agencyId, runAt: T0 - GRACE });
    const [claim] = await queue.claim({ limit: 1, leaseMs: LEASE, now: T0 });
    expect(claim?.deliveryId, 'the held delivery is claimed by a live worker').toBe(held.id);
    return { lost, queued, claim: claim!, recentlyLost };
  }

  it('restores only overdue pending deliveries without an entry, at their due time, and leaves live claims alone', async () => {
    const { lost, queued, claim } = await scenario();
    const sweep = createRecoverySweep({ store, queue, graceMs: GRACE, clock: () => T0 });
    expect(await sweep.runOnce(), 'entries restored').toBe(2);
    expect(await sweep.runOnce(), 'a second sweep finds nothing more to restore').toBe(0);
    expect(await queue.renew(claim, 10 * GRACE, T0), 'the worker still holds its claim').toBe(true);
    const claims = await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 });
    expect(claims.map((entry) => [entry.deliveryId, entry.runAt])).toEqual(
      lost.map((record) => [record.id, record.nextRetryAt]),
    );
    for (const entry of claims) await queue.ack(entry);
    expect(
      await queue.claim({ limit: 10, leaseMs: LEASE, now: T0 + GRACE }),
      'the queued entry kept its own runAt',
    ).toEqual([expect.objectContaining({ deliveryId: queued.id, runAt: T0 + GRACE })]);
    expect(await sweep.runOnce(), 'acked without a store update: lost again, restored again').toBe(2);
  });

  it('start() sweeps at once and on every interval; stop() ends it', async () => {
    await scenario();
    let now = T0;
    const errors: unknown[] = [];
    const sweep = createRecoverySweep({
      store,
      queue,
      graceMs: GRACE,
      intervalMs: 20,
      clock: () => now,
      onError: (error) => errors.push(error),
    });
    sweep.start();
    sweep.start();
    await expect.poll(() => queue.counts(), { timeout: 5_000 }).toEqual({ queued: 3, claimed: 1 });
    now = T0 + GRACE;
    await expect.poll(() => queue.counts(), { timeout: 5_000 }).toEqual({ queued: 4, claimed: 1 });
    await sweep.stop();
    await sweep.stop();
    expect(errors).toEqual([]);
  });
});
