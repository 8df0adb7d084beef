import type { AttemptRecord, DeliveryUpdate } from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import type { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { createRedisStore } from '../src/index';
import { commandCounter, describeRedis, keysUnder, useTestRedis } from './redis-test-env';

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

const ATTEMPT: AttemptRecord = {
  attempt: 1,
  trigger: 'automatic',
  startedAt: T0,
  durationMs: 9,
  responseCode: 204,
  errorKind: null,
  errorMessage: null,
  responseExcerpt: null,
};

function delivered(recordedAttempt: AttemptRecord): DeliveryUpdate {
  return {
    status: 'success',
    attempt: recordedAttempt.attempt,
    maxAttempts: 5,
    nextRetryAt: null,
    lastAttemptAt: recordedAttempt.startedAt,
    deliveredAt: recordedAttempt.startedAt,
    lastResponseCode: recordedAttempt.responseCode,
    lastErrorMessage: null,
    lastResponseExcerpt: null,
    nextAttemptTrigger: 'automatic',
    recordedAttempt,
  };
}

describeRedis('Redis store: the attempt history', () => {
  let redis: Redis;
  let prefix: string;
  useTestRedis('attempts', (client, fresh) => {
    redis = client;
    prefix = fresh;
  });

  it('is recorded by the update script alone (one command) in a field of the delivery’s hash, no key of its own', async () => {
    const store = createRedisStore({ redis, prefix });
    const [warmUp, record] = [makeDeliveryRecord(), makeDeliveryRecord()];
    await store.insertDelivery(warmUp);
    await store.insertDelivery(record);
    // Loads the script into the server's cache, so the count below is the EVALSHA alone.
    await store.updateDelivery(warmUp.id, { attempt: 0, status: 'pending' }, delivered(ATTEMPT));
    const counter = commandCounter(redis);
    try {
      await store.updateDelivery(record.id, { attempt: 0, status: 'pending' }, delivered(ATTEMPT));
      expect(counter.count(), 'commands for the compare-and-set and its attempt').toBe(1);
    } finally {
      counter.stop();
    }
    const keysOfRecord = (await keysUnder(redis, prefix)).filter((key) => key.includes(record.id));
    expect(keysOfRecord, 'keys named after the delivery').toEqual([`${prefix}{store}:d:${record.id}`]);
    expect(JSON.parse((await redis.hget(`${prefix}{store}:d:${record.id}`, 't1')) ?? 'null')).toEqual(
      ATTEMPT,
    );
    expect(await store.listAttempts(record.id)).toEqual([ATTEMPT]);
  });

  it('finishedTtlMs retention deletes a finished delivery’s history with it', async () => {
    const store = createRedisStore({ redis, prefix, finishedTtlMs: DAY, retentionBatch: 2 });
    const old = makeDeliveryRecord({ createdAt: T0 });
    await store.insertDelivery(old);
    await store.updateDelivery(old.id, { attempt: 0, status: 'pending' }, delivered(ATTEMPT));
    expect(await store.listAttempts(old.id)).toEqual([ATTEMPT]);
    await store.insertDelivery(makeDeliveryRecord({ createdAt: T0 + 2 * DAY }));
    expect(await store.getDelivery(old.id), 'the expired delivery').toBeNull();
    expect(await store.listAttempts(old.id), 'its history').toEqual([]);
  });

  it('orders attempts by number, not by field name (t10 after t9)', async () => {
    const store = createRedisStore({ redis, prefix });
    const record = makeDeliveryRecord({ maxAttempts: 12 });
    await store.insertDelivery(record);
    const numbers = Array.from({ length: 11 }, (_, index) => index + 1);
    for (const attempt of numbers) {
      const update = { ...delivered({ ...ATTEMPT, attempt }), status: 'pending' as const, maxAttempts: 12 };
      await store.updateDelivery(record.id, { attempt: attempt - 1, status: 'pending' }, update);
    }
    expect((await store.listAttempts(record.id)).map((entry) => entry.attempt)).toEqual(numbers);
  });

  it('reads a record stored before the history existed (no nextAttemptTrigger) as due an automatic attempt', async () => {
    const store = createRedisStore({ redis, prefix });
    const record = makeDeliveryRecord();
    await store.insertDelivery(record);
    const { nextAttemptTrigger: _trigger, ...legacy } = record;
    await redis.hset(`${prefix}{store}:d:${record.id}`, 'r', JSON.stringify(legacy));
    expect(await store.getDelivery(record.id)).toEqual(record);
  });
});
