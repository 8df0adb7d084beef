import type { DeliveryRecord, DeliveryUpdate, RecoveryRecord } from '@svc/webhooks-core';
import { makeDeliveryRecord, makeRecoveryRecord } from '@svc/webhooks-core/testing';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedisStore, createRedisWebhooks, type RedisWebhooks } from '../src/index';
import {
  commandCounter,
  connectTestRedis,
  describeRedis,
  listenOn,
  removeKeys,
  uniquePrefix,
} from './redis-test-env';

const T0 = 1_700_000_000_000;
const LEASE = 30_000;

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

describeRedis('createRedisWebhooks: store and queue linked in the same scripts', () => {
  let admin: Redis;
  let redis: Redis;
  let prefix: string;
  let linked: RedisWebhooks;
  let closeListeners: Array<() => void> = [];

  beforeAll(() => {
    admin = connectTestRedis();
  });
  afterAll(async () => {
    await admin.quit();
  });
  beforeEach(() => {
    prefix = uniquePrefix('linked');
    redis = connectTestRedis();
    linked = createRedisWebhooks({ redis, prefix, wakeups: false });
  });
  afterEach(async () => {
    for (const close of closeListeners) close();
    closeListeners = [];
    await linked.close();
    await redis.quit();
    await removeKeys(admin, prefix);
  });

  /** Stores `count` failed deliveries of agency-a and opens a recovery over them. */
  async function failedWithRecovery(
    count: number,
  ): Promise<{ records: DeliveryRecord[]; recovery: RecoveryRecord }> {
    const records = Array.from({ length: count }, (_, index) =>
      makeDeliveryRecord({
        agencyId: 'agency-a',
        eventId: `evt-${index}`,
        createdAt: T0 - 1_000,
        status: 'failed',
        attempt: 5,
        nextRetryAt: null,
      }),
    );
    await Promise.all(records.map((record) => linked.store.insertDelivery(record)));
    const { recovery } = await linked.store.createRecovery(
      makeRecoveryRecord({ since: T0 - 60_000, until: T0, matched: count }),
    );
    return { records, recovery };
  }

  /** Collects the queue's wake-up messages from now on (closed after the test). */
  async function listenForWakeups(): Promise<{ received: string[] }> {
    const wakeups = await listenOn(redis, linked.queue.keys.wakeChannel);
    closeListeners.push(wakeups.close);
    return wakeups;
  }

  it('insertDelivery queues a new pending delivery in the same step, and the emit’s enqueue costs no round trip', async () => {
    // Warm up: the connection's handshake and the script cache are not what is counted.
    await linked.store.insertDelivery(makeDeliveryRecord({ agencyId: 'agency-b', nextRetryAt: T0 + 10 }));
    const record = makeDeliveryRecord({ agencyId: 'agency-a', nextRetryAt: T0 + 10 });
    const counter = commandCounter(redis);
    await linked.store.insertDelivery(record);
    await linked.queue.enqueue({ deliveryId: record.id, agencyId: 'agency-a', runAt: T0 + 10 });
    expect(counter.count(), 'commands sent for insert + enqueue').toBe(1);
    expect(await linked.queue.claim({ limit: 5, leaseMs: LEASE, now: T0 + 9 })).toEqual([]);
    const claims = await linked.queue.claim({
      limit: 5,
      leaseMs: LEASE,
      now: T0 + 10,
      excludeAgencies: ['agency-b'],
    });
    expect(claims.map((claim) => [claim.deliveryId, claim.runAt])).toEqual([[record.id, T0 + 10]]);
  });

  it('a duplicate insert (same event) queues nothing more; finished records are never queued', async () => {
    const first = makeDeliveryRecord({ agencyId: 'agency-a', eventId: 'evt-1' });
    await linked.store.insertDelivery(first);
    await linked.store.insertDelivery(makeDeliveryRecord({ agencyId: 'agency-a', eventId: 'evt-1' }));
    await linked.store.insertDelivery(makeDeliveryRecord({ status: 'success', nextRetryAt: null }));
    expect(await linked.queue.counts()).toEqual({ queued: 1, claimed: 0 });
  });

  it('recording a failed attempt reschedules the entry atomically; the worker’s reschedule is answered in process', async () => {
    const record = makeDeliveryRecord({ agencyId: 'agency-a', nextRetryAt: T0 });
    await linked.store.insertDelivery(record);
    const [claim] = await linked.queue.claim({ limit: 1, leaseMs: LEASE, now: T0 });
    await linked.store.updateDelivery(
      record.id,
      { attempt: 0, status: 'pending' },
      attempt({ nextRetryAt: T0 + 60_000 }),
    );
    const counter = commandCounter(redis);
    expect(await linked.queue.reschedule(claim!, T0 + 60_000)).toBe(true);
    expect(counter.count(), 'commands sent for the reschedule').toBe(0);
    expect(await linked.queue.renew(claim!, LEASE, T0), 'the old claim was released with the update').toBe(
      false,
    );
    expect(await linked.queue.claim({ limit: 1, leaseMs: LEASE, now: T0 + 59_999 })).toEqual([]);
    const [again] = await linked.queue.claim({ limit: 1, leaseMs: LEASE, now: T0 + 60_000 });
    expect(again?.deliveryId).toBe(record.id);
  });

  it('recording success removes the entry atomically; the worker’s ack is answered in process', async () => {
    const record = makeDeliveryRecord({ agencyId: 'agency-a', nextRetryAt: T0 });
    await linked.store.insertDelivery(record);
    const [claim] = await linked.queue.claim({ limit: 1, leaseMs: LEASE, now: T0 });
    await linked.store.updateDelivery(
      record.id,
      { attempt: 0, status: 'pending' },
      attempt({ status: 'success', deliveredAt: T0, lastResponseCode: 200, lastErrorMessage: null }),
    );
    expect(await linked.queue.counts(), 'entry gone with the update').toEqual({ queued: 0, claimed: 0 });
    expect(await linked.queue.ack(claim!)).toBe(true);
    expect(await linked.queue.ack(claim!), 'a second ack').toBe(false);
  });

  it('a replay (failed → pending) queues the delivery again in the same step', async () => {
    const record = makeDeliveryRecord({
      agencyId: 'agency-a',
      status: 'failed',
      attempt: 5,
      nextRetryAt: null,
    });
    await linked.store.insertDelivery(record);
    expect(await linked.queue.counts()).toEqual({ queued: 0, claimed: 0 });
    await linked.store.updateDelivery(
      record.id,
      { attempt: 5, status: 'failed' },
      attempt({ attempt: 5, maxAttempts: 6, nextRetryAt: T0 + 5 }),
    );
    await linked.queue.enqueue({ deliveryId: record.id, agencyId: 'agency-a', runAt: T0 + 5 });
    const claims = await linked.queue.claim({ limit: 5, leaseMs: LEASE, now: T0 + 5 });
    expect(claims.map((claim) => claim.deliveryId)).toEqual([record.id]);
  });

  it('a recovery’s enqueueMissing after its replays costs no round trip; entries the store did not queue still go', async () => {
    const failed = (eventId: string) =>
      makeDeliveryRecord({ agencyId: 'agency-a', eventId, status: 'failed', attempt: 5, nextRetryAt: null });
    const [first, second, untouched] = [failed('evt-1'), failed('evt-2'), failed('evt-3')];
    for (const record of [first, second, untouched]) await linked.store.insertDelivery(record);
    for (const record of [first, second]) {
      await linked.store.updateDelivery(
        record.id,
        { attempt: 5, status: 'failed' },
        attempt({ attempt: 5, maxAttempts: 6, nextRetryAt: T0 + 5, nextAttemptTrigger: 'recovery' }),
      );
    }
    const entry = (record: typeof first) => ({ deliveryId: record.id, agencyId: 'agency-a', runAt: T0 + 5 });
    // Warm up the script cache: a first EVALSHA may be answered NOSCRIPT and sent again in full.
    await linked.queue.enqueueMissing([{ deliveryId: 'warm-up', agencyId: 'agency-b', runAt: T0 + 5 }]);
    const counter = commandCounter(redis);
    expect(await linked.queue.enqueueMissing([entry(first), entry(second)])).toBe(0);
    expect(counter.count(), 'commands sent for the replayed page').toBe(0);
    // The notes served once: a second call, and an entry nobody queued, go to Redis.
    expect(await linked.queue.enqueueMissing([entry(first), entry(untouched)])).toBe(1);
    expect(counter.count()).toBe(1);
    const claims = await linked.queue.claim({
      limit: 5,
      leaseMs: LEASE,
      now: T0 + 5,
      excludeAgencies: ['agency-b'],
    });
    expect(claims.map((claim) => claim.deliveryId).sort()).toEqual(
      [first.id, second.id, untouched.id].sort(),
    );
  });

  it('a recovery page replayed by the store is queued in the same script; its enqueueMissing sends nothing', async () => {
    const { records, recovery } = await failedWithRecovery(3);
    const messages = await listenForWakeups();
    const replay = await linked.store.replayRecoveryPage(recovery, {
      limit: 10,
      now: T0 + 5,
      leaseUntil: T0 + LEASE,
    });
    expect(replay?.replayedIds).toHaveLength(3);
    await expect.poll(() => messages.received, { timeout: 5_000 }).toEqual(['*agency-a']);
    const entries = (replay?.replayedIds ?? []).map((deliveryId) => ({
      deliveryId,
      agencyId: 'agency-a',
      runAt: T0 + 5,
    }));
    const counter = commandCounter(redis);
    expect(await linked.queue.enqueueMissing(entries)).toBe(0);
    expect(counter.count(), 'commands sent for the replayed page').toBe(0);
    const claims = await linked.queue.claim({ limit: 5, leaseMs: LEASE, now: T0 + 5 });
    expect(claims.map((claim) => claim.deliveryId).sort()).toEqual(records.map((record) => record.id).sort());
  });

  it('a recovery page replaces an entry a crashed worker left claimed, and queues the rest alike', async () => {
    const { records, recovery } = await failedWithRecovery(3);
    const [stale] = records as [DeliveryRecord];
    // A worker claimed it and died before its ack; its lease is still live.
    await linked.queue.enqueue({ deliveryId: stale.id, agencyId: 'agency-a', runAt: T0 - 500 });
    const [abandoned] = await linked.queue.claim({ limit: 1, leaseMs: LEASE, now: T0 - 500 });
    expect(abandoned?.deliveryId).toBe(stale.id);
    const replay = await linked.store.replayRecoveryPage(recovery, {
      limit: 10,
      now: T0 + 5,
      leaseUntil: T0 + LEASE,
    });
    expect(replay?.replayedIds).toHaveLength(3);
    expect(await linked.queue.counts(), 'the claim dropped, three entries due').toEqual({
      queued: 3,
      claimed: 0,
    });
    expect(await linked.queue.ack(abandoned!), 'the dead worker’s claim no longer holds').toBe(false);
    const claims = await linked.queue.claim({ limit: 5, leaseMs: LEASE, now: T0 + 5 });
    expect(claims.map((claim) => [claim.deliveryId, claim.runAt]).sort()).toEqual(
      records.map((record) => [record.id, T0 + 5]).sort(),
    );
    expect(Number(await admin.hget(linked.queue.keys.held, 'agency-a')), 'leases counted once each').toBe(3);
  });

  it('a page larger than one variadic call replays and queues every delivery', async () => {
    const count = 4_100;
    const { recovery } = await failedWithRecovery(count);
    const replay = await linked.store.replayRecoveryPage(recovery, {
      limit: count,
      now: T0 + 5,
      leaseUntil: T0 + LEASE,
    });
    expect(replay?.replayedIds).toHaveLength(count);
    expect(await linked.queue.counts()).toEqual({ queued: count, claimed: 0 });
    expect(await linked.store.countDeliveries?.('agency-a', { status: 'failed' })).toBe(0);
    expect(await linked.store.countDeliveries?.('agency-a', { status: 'pending' })).toBe(count);
  });

  it('an enqueue that differs from what the store did still runs (runAt moved by the caller)', async () => {
    const record = makeDeliveryRecord({ agencyId: 'agency-a', nextRetryAt: T0 });
    await linked.store.insertDelivery(record);
    await linked.queue.enqueue({ deliveryId: record.id, agencyId: 'agency-a', runAt: T0 + 1_000 });
    expect(await linked.queue.claim({ limit: 1, leaseMs: LEASE, now: T0 })).toEqual([]);
    expect(await linked.queue.claim({ limit: 1, leaseMs: LEASE, now: T0 + 1_000 })).toHaveLength(1);
  });

  it('close() leaves an injected client open', async () => {
    await linked.close();
    await linked.close();
    expect(await redis.ping()).toBe('PONG');
  });

  it('the worker’s reads right after a claim come with the claim: getDelivery and getConfig send no command', async () => {
    await linked.store.upsertConfig({
      agencyId: 'agency-a',
      webhookUrl: 'https://example.com/hooks',
      enabled: true,
      subscribedEventTypes: ['job_created'],
      now: T0,
      newId: 'cfg-a',
      newSigningSecret: 'a'.repeat(64),
    });
    const records = [
      makeDeliveryRecord({ agencyId: 'agency-a' }),
      makeDeliveryRecord({ agencyId: 'agency-a' }),
    ];
    for (const record of records) await linked.store.insertDelivery(record);
    const claims = await linked.queue.claim({ limit: 5, leaseMs: LEASE, now: T0 });
    expect(claims).toHaveLength(2);
    const counter = commandCounter(redis);
    for (const record of records) {
      expect(await linked.store.getDelivery(record.id)).toEqual(record);
      expect((await linked.store.getConfig('agency-a'))?.signingSecret).toBe('a'.repeat(64));
    }
    expect(counter.count(), 'commands sent for two getDelivery + two getConfig').toBe(0);
    expect(await linked.store.getDelivery(records[0]!.id), 'a second read goes to Redis').toEqual(records[0]);
    expect(counter.count()).toBe(1);
  });

  it('a change landing between the claim and the read is caught by the compare-and-set', async () => {
    const record = makeDeliveryRecord({ agencyId: 'agency-a' });
    await linked.store.insertDelivery(record);
    await linked.queue.claim({ limit: 1, leaseMs: LEASE, now: T0 });
    // Another process records an attempt right after our claim read the record.
    const other = createRedisWebhooks({ redis: admin, prefix, wakeups: false });
    await other.store.updateDelivery(
      record.id,
      { attempt: 0, status: 'pending' },
      attempt({ nextRetryAt: T0 + 1 }),
    );
    await other.close();
    const read = await linked.store.getDelivery(record.id);
    expect(read?.attempt, 'the snapshot, a moment old').toBe(0);
    expect(
      await linked.store.updateDelivery(record.id, { attempt: 0, status: 'pending' }, attempt({})),
      'stale write',
    ).toBeNull();
    expect((await linked.store.getDelivery(record.id))?.attempt, 'the fresh read after it').toBe(1);
  });

  describe('the configuration cache', () => {
    const base = {
      agencyId: 'agency-a',
      webhookUrl: 'https://example.com/v1',
      enabled: true,
      subscribedEventTypes: ['job_created'],
      now: T0,
      newId: 'cfg-a',
      newSigningSecret: 'a'.repeat(64),
    };

    /** Reads until the subscription is live and the configuration is cached. */
    async function cacheIt(): Promise<void> {
      await expect
        .poll(async () => {
          await linked.store.getConfig('agency-a');
          const counter = commandCounter(redis);
          await linked.store.getConfig('agency-a');
          return counter.count();
        })
        .toBe(0);
    }

    it('serves repeated reads from the process once the subscription is live, as copies', async () => {
      await linked.store.upsertConfig(base);
      await cacheIt();
      const read = await linked.store.getConfig('agency-a');
      read?.subscribedEventTypes.push('mutated');
      expect((await linked.store.getConfig('agency-a'))?.subscribedEventTypes).toEqual(['job_created']);
    });

    it('a write through this store is seen at once; one through another process after its message', async () => {
      await linked.store.upsertConfig(base);
      await cacheIt();
      await linked.store.setSigningSecret('agency-a', 'b'.repeat(64), T0 + 1);
      expect((await linked.store.getConfig('agency-a'))?.signingSecret, 'own write').toBe('b'.repeat(64));
      await cacheIt();
      const elsewhere = createRedisStore({ redis: admin, prefix });
      await elsewhere.upsertConfig({ ...base, webhookUrl: 'https://example.com/v2', now: T0 + 2 });
      await expect
        .poll(async () => (await linked.store.getConfig('agency-a'))?.webhookUrl)
        .toBe('https://example.com/v2');
      await cacheIt();
      await elsewhere.deleteConfig('agency-a');
      await expect.poll(() => linked.store.getConfig('agency-a')).toBeNull();
    });

    it('a dropped subscription empties the cache: a change whose message was lost is still seen', async () => {
      await linked.store.upsertConfig(base);
      await cacheIt();
      const clients = (await admin.client('LIST')) as string;
      const subscriber = clients
        .split('\n')
        .find((line) => line.includes(`name=${prefix}{store}:subscriber`));
      expect(subscriber, 'the subscriber connection, by its name').toBeDefined();
      // Change the record behind the cache's back (no message), then cut the subscriber.
      await admin.hset(`${prefix}{store}:cfg:agency-a`, 'webhookUrl', 'https://example.com/silent');
      await admin.client('KILL', 'ID', /id=(\d+)/.exec(subscriber!)![1]!);
      await expect
        .poll(async () => (await linked.store.getConfig('agency-a'))?.webhookUrl)
        .toBe('https://example.com/silent');
    });
  });
});
