import { randomBytes } from 'node:crypto';
import type { DeliveryRecord, ListDeliveriesOptions } from '@svc/webhooks-core';
import { makeDeliveryRecord, makeRecoveryRecord } from '@svc/webhooks-core/testing';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRedisStore, type RedisWebhookStore } from '../src/index';
import { describeRedis, useTestRedis } from './redis-test-env';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;

/** A lowercase UUIDv7 whose own time is `time` (ms), as the service's ids are. */
function idAt(time: number): string {
  const hex = time.toString(16).padStart(12, '0');
  const random = randomBytes(10).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${random.slice(0, 3)}-8${random.slice(3, 6)}-${random.slice(6, 18)}`;
}

/** `count` deliveries of agency-a one a minute from T0, each id made at its createdAt plus `gapMs`. */
function timeline(count: number, gapMs = 0): DeliveryRecord[] {
  return Array.from({ length: count }, (_, index) =>
    makeDeliveryRecord({
      id: idAt(T0 + index * MINUTE + gapMs),
      eventType: index % 10 === 0 ? 'job_cancelled' : 'job_created',
      entityId: `job-${index % 7}`,
      createdAt: T0 + index * MINUTE,
    }),
  );
}

function expected(records: readonly DeliveryRecord[], keep: (record: DeliveryRecord) => boolean): string[] {
  return records
    .filter(keep)
    .map((record) => record.id)
    .reverse();
}

describeRedis('Redis list filters: layout and repair', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisWebhookStore;
  const key = (name: string) => `${prefix}{store}:${name}`;
  const list = async (options: Partial<ListDeliveriesOptions>) =>
    (await store.listDeliveries('agency-a', { limit: 100, ...options })).map((record) => record.id);

  useTestRedis('list-filters', (client, fresh) => {
    redis = client;
    prefix = fresh;
  });
  beforeEach(() => {
    store = createRedisStore({ redis, prefix });
  });
  afterEach(() => store.close());

  it('keeps the largest gap between createdAt and the id’s time per agency, and no bound for other ids', async () => {
    const records = timeline(5, 7);
    for (const record of records) await store.insertDelivery(record);
    expect(await redis.hget(key('list-skew'), 'agency-a')).toBe('7');
    const early = makeDeliveryRecord({ id: idAt(T0 - 2_000), createdAt: T0 });
    await store.insertDelivery(early);
    expect(await redis.hget(key('list-skew'), 'agency-a')).toBe('2000');
    const odd = makeDeliveryRecord({ id: 'not-a-uuid', createdAt: T0 });
    await store.insertDelivery(odd);
    expect(await redis.hget(key('list-skew'), 'agency-a')).toBe('x');
    expect(await list({ createdSince: T0, createdBefore: T0 + 1 })).toEqual([
      odd.id,
      records[0]!.id,
      early.id,
    ]);
  });

  it('a filtered list of an agency without deliveries answers empty and writes nothing', async () => {
    expect(
      await store.listDeliveries('agency-z', { createdSince: T0, eventType: 'job_created', limit: 10 }),
    ).toEqual([]);
    expect(await redis.exists(key('list-skew'), key('ix-type:agency-z'))).toBe(0);
  });

  it('a time window reads no delivery whose id lies outside the window widened by the gap', async () => {
    const records = timeline(300, 3);
    for (const record of records) await store.insertDelivery(record);
    const since = T0 + 100 * MINUTE;
    const until = T0 + 110 * MINUTE;
    // Poison every delivery outside [since − 3 ms, until + 3 ms): reading one would fail the script.
    for (const record of records) {
      if (record.createdAt < since - MINUTE || record.createdAt > until) {
        await redis.hset(key(`d:${record.id}`), 'c', 'not-a-number', 'r', '{');
      }
    }
    const inWindow = (record: DeliveryRecord) => record.createdAt >= since && record.createdAt < until;
    expect(await list({ createdSince: since, createdBefore: until })).toEqual(expected(records, inWindow));
    expect(await list({ createdSince: since, createdBefore: until, eventType: 'job_cancelled' })).toEqual(
      expected(records, (record) => inWindow(record) && record.eventType === 'job_cancelled'),
    );
    const page = await list({ createdSince: since, createdBefore: until, limit: 4 });
    expect(await list({ createdSince: since, createdBefore: until, beforeId: page.at(-1) })).toEqual(
      expected(records, inWindow).slice(4),
    );
  });

  it('indexes, on the first filtered list, deliveries written before the filter indexes existed', async () => {
    const records = timeline(60);
    for (const record of records) await store.insertDelivery(record);
    // What a release without filter indexes leaves behind: no index keys, no skew, no y/n fields.
    await redis.del(key('ix-type:agency-a'), key('ix-entity:agency-a'));
    await redis.hdel(key('list-skew'), 'agency-a');
    for (const record of records) await redis.hdel(key(`d:${record.id}`), 'y', 'n');
    expect(await list({ eventType: 'job_cancelled' })).toEqual(
      expected(records, (record) => record.eventType === 'job_cancelled'),
    );
    expect(await redis.zcard(key('ix-type:agency-a'))).toBe(60);
    expect(await redis.zcard(key('ix-entity:agency-a'))).toBe(60);
    expect(await redis.hget(key('list-skew'), 'agency-a')).toBe('0');
    expect(await redis.hmget(key(`d:${records[3]!.id}`), 'y', 'n')).toEqual(['job_created', 'job-3']);
    expect(await list({ entityId: 'job-2', createdSince: T0 + 10 * MINUTE })).toEqual(
      expected(records, (record) => record.entityId === 'job-2' && record.createdAt >= T0 + 10 * MINUTE),
    );
  });

  it('a recovery page repairs deliveries written before the filter indexes, and reads a missing type from the record', async () => {
    const records = timeline(30).map((record) => ({
      ...record,
      status: 'failed' as const,
      attempt: 5,
      nextRetryAt: null,
    }));
    for (const record of records) await store.insertDelivery(record);
    await redis.del(key('ix-type:agency-a'), key('ix-entity:agency-a'));
    await redis.hdel(key('list-skew'), 'agency-a');
    for (const record of records) await redis.hdel(key(`d:${record.id}`), 'y', 'n');
    const { recovery } = await store.createRecovery(
      makeRecoveryRecord({ since: T0, until: T0 + 30 * MINUTE, eventTypes: ['job_cancelled'], matched: 3 }),
    );
    const page = { now: T0, leaseUntil: T0 + MINUTE };
    const cancelled = expected(records, (record) => record.eventType === 'job_cancelled');
    const first = await store.replayRecoveryPage(recovery, { ...page, limit: 1 });
    expect(first?.replayedIds).toEqual(cancelled.slice(0, 1));
    expect(await redis.zcard(key('ix-type:agency-a'))).toBe(30);
    // A hash an older release wrote after the repair: indexed, but without y and n.
    for (const record of records) await redis.hdel(key(`d:${record.id}`), 'y', 'n');
    const next = await store.updateRecovery(recovery.id, 2, { cursorId: cancelled[0], pageEndId: null });
    const rest = await store.replayRecoveryPage(next as typeof recovery, { ...page, limit: 10 });
    expect(rest?.replayedIds).toEqual(cancelled.slice(1));
    expect(await list({ status: 'pending' })).toEqual(cancelled);
  });

  it('drops index entries of deliveries an older release deleted, and lists the rest exactly', async () => {
    const records = timeline(20);
    for (const record of records) await store.insertDelivery(record);
    const gone = records.slice(0, 5);
    // An older release's purge: record and list entries gone, filter entries left behind.
    for (const record of gone) {
      await redis.del(key(`d:${record.id}`));
      await redis.zrem(key('ix:all:agency-a'), record.id);
      await redis.zrem(key('ix:pending:agency-a'), record.id);
    }
    const kept = records.slice(5);
    expect(await list({ eventType: 'job_created' })).toEqual(
      expected(kept, (record) => record.eventType === 'job_created'),
    );
    expect(await redis.zcard(key('ix-type:agency-a'))).toBe(15);
    expect(await redis.zcard(key('ix-entity:agency-a'))).toBe(15);
  });

  it('a purge removes the filter entries with the delivery, and an emptied agency’s next delivery resets its gap', async () => {
    const old = makeDeliveryRecord({
      id: idAt(T0 + 5 * MINUTE),
      createdAt: T0,
      status: 'success',
      nextRetryAt: null,
    });
    await store.insertDelivery(old);
    expect(await redis.hget(key('list-skew'), 'agency-a')).toBe(String(5 * MINUTE));
    expect(await store.purgeDeliveries({ olderThan: T0 + 1, limit: 10 })).toBe(1);
    expect(await redis.exists(key('ix-type:agency-a'), key('ix-entity:agency-a'))).toBe(0);
    const next = makeDeliveryRecord({ id: idAt(T0 + 10 * MINUTE), createdAt: T0 + 10 * MINUTE });
    await store.insertDelivery(next);
    expect(await redis.hget(key('list-skew'), 'agency-a')).toBe('0');
    expect(await list({ createdSince: T0 + 10 * MINUTE })).toEqual([next.id]);
  });
});
