import { randomBytes } from 'node:crypto';
import type { CountDeliveriesFilter, DeliveryRecord } from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRedisStore, type RedisWebhookStore } from '../src/index';
import { commandCounter, describeRedis, useTestRedis } from './redis-test-env';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;

/** A lowercase UUIDv7 whose own time is `time` (ms), as the service's ids are. */
function idAt(time: number): string {
  const hex = time.toString(16).padStart(12, '0');
  const random = randomBytes(10).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${random.slice(0, 3)}-8${random.slice(3, 6)}-${random.slice(6, 18)}`;
}

/** A failed delivery of agency-a created at `createdAt`, its id made at `idTime`. */
function failedAt(createdAt: number, idTime = createdAt, eventType = 'job_created'): DeliveryRecord {
  return makeDeliveryRecord({ id: idAt(idTime), createdAt, eventType, status: 'failed', nextRetryAt: null });
}

describeRedis('Redis delivery counts', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisWebhookStore;
  const key = (name: string) => `${prefix}{store}:${name}`;
  const pagedCount = async (filter: CountDeliveriesFilter) => {
    let total = 0;
    let beforeId: string | undefined;
    for (;;) {
      const page = await store.listDeliveries('agency-a', { ...filter, limit: 500, beforeId });
      total += page.length;
      if (page.length < 500) return total;
      beforeId = page.at(-1)?.id;
    }
  };

  useTestRedis('count-filters', (client, fresh) => {
    redis = client;
    prefix = fresh;
  });
  beforeEach(() => {
    store = createRedisStore({ redis, prefix });
  });
  afterEach(() => store.close());

  it('counts a window by the index alone, reading only the deliveries at its edges', async () => {
    const since = T0 + 100 * MINUTE;
    const until = T0 + 110 * MINUTE;
    const steady = Array.from({ length: 300 }, (_, index) => failedAt(T0 + index * MINUTE));
    // Ids 3 ms off their createdAt, on both sides of both edges: the agency's skew is 3.
    const edges = [
      failedAt(since - 1, since + 2),
      failedAt(since + 1, since - 2),
      failedAt(until - 1, until + 2),
      failedAt(until + 1, until - 2),
    ];
    for (const record of [...steady, ...edges]) await store.insertDelivery(record);
    expect(await redis.hget(key('list-skew'), 'agency-a')).toBe('3');
    const nearAnEdge = (record: DeliveryRecord) =>
      Math.abs(record.createdAt - since) <= 3 || Math.abs(record.createdAt - until) <= 3;
    // Poison every delivery not within 3 ms of an edge: reading one would fail the script.
    for (const record of steady) {
      if (!nearAnEdge(record)) await redis.hset(key(`d:${record.id}`), 'c', 'not-a-number');
    }
    expect(
      await store.countDeliveries('agency-a', {
        status: 'failed',
        createdSince: since,
        createdBefore: until,
      }),
    ).toBe(10 + 2);
    expect(await store.countDeliveries('agency-a', { createdSince: since })).toBe(200 + 3);
    expect(await store.countDeliveries('agency-a', { createdBefore: until })).toBe(110 + 3);
  });

  it('walks a window no index proves in chunks, each a short script', async () => {
    const records = Array.from({ length: 2_500 }, (_, index) =>
      failedAt(T0 + index * 1_000, T0 + index * 1_000, index % 50 === 0 ? 'job_cancelled' : 'job_created'),
    );
    for (let index = 0; index < records.length; index += 250) {
      await Promise.all(records.slice(index, index + 250).map((record) => store.insertDelivery(record)));
    }
    const filter: CountDeliveriesFilter = {
      status: 'failed',
      eventType: 'job_created',
      createdSince: T0 + 10_000,
      createdBefore: T0 + 2_400_000,
    };
    const expected = records.filter(
      (record) =>
        record.eventType === 'job_created' &&
        record.createdAt >= (filter.createdSince as number) &&
        record.createdAt < (filter.createdBefore as number),
    ).length;
    const commands = commandCounter(redis);
    const counted = await store.countDeliveries('agency-a', filter);
    const scripts = commands.count();
    commands.stop();
    expect(counted).toBe(expected);
    expect(await pagedCount(filter)).toBe(expected);
    // The type's range, the smaller index, holds 2,343 of the window's members: five chunks of 500.
    expect(scripts).toBeGreaterThanOrEqual(5);
  });

  it('indexes, on the first count, deliveries written before the filter indexes existed', async () => {
    const records = Array.from({ length: 60 }, (_, index) =>
      failedAt(T0 + index * MINUTE, T0 + index * MINUTE, index % 10 === 0 ? 'job_cancelled' : 'job_created'),
    );
    for (const record of records) await store.insertDelivery(record);
    // What a release without filter indexes leaves behind: no index keys, no skew, no y/n fields.
    await redis.del(key('ix-type:agency-a'), key('ix-entity:agency-a'));
    await redis.hdel(key('list-skew'), 'agency-a');
    for (const record of records) await redis.hdel(key(`d:${record.id}`), 'y', 'n');
    expect(await store.countDeliveries('agency-a', { status: 'failed', eventType: 'job_cancelled' })).toBe(6);
    expect(await redis.zcard(key('ix-type:agency-a'))).toBe(60);
    expect(await redis.hget(key('list-skew'), 'agency-a')).toBe('0');
    expect(await store.countDeliveries('agency-a', { createdSince: T0 + 30 * MINUTE })).toBe(30);
  });

  it('an unfiltered or status-only count is the size of the agency’s list', async () => {
    for (let index = 0; index < 5; index++) await store.insertDelivery(failedAt(T0 + index));
    await store.insertDelivery(makeDeliveryRecord({ createdAt: T0 }));
    const commands = commandCounter(redis);
    expect(await store.countDeliveries('agency-a', {})).toBe(6);
    expect(await store.countDeliveries('agency-a', { status: 'failed' })).toBe(5);
    expect(await store.countDeliveries('agency-z', { status: 'failed' })).toBe(0);
    expect(commands.count()).toBe(3);
    commands.stop();
  });
});
