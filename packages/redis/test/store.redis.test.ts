import {
  type CircuitState,
  type DeliveryRecord,
  type DeliveryUpdate,
  InvalidOptionError,
} from '@svc/webhooks-core';
import { makeDeliveryRecord as makeRecord } from '@svc/webhooks-core/testing';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRedisStore, type RedisWebhookStore } from '../src/index';
import {
  commandCounter,
  connectTestRedis,
  describeRedis,
  keysUnder,
  REDIS_URL,
  useTestRedis,
} from './redis-test-env';

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

function failedAttempt(attempt: number, overrides: Partial<DeliveryUpdate> = {}): DeliveryUpdate {
  return {
    status: 'failed',
    attempt,
    maxAttempts: attempt,
    nextRetryAt: null,
    lastAttemptAt: T0 + attempt,
    deliveredAt: null,
    lastResponseCode: 500,
    lastErrorMessage: 'HTTP 500',
    lastResponseExcerpt: null,
    nextAttemptTrigger: 'automatic',
    ...overrides,
  };
}

const CLOSED: CircuitState = {
  status: 'closed',
  consecutiveFailures: 0,
  failingSince: null,
  lastFailureAt: null,
  lastSuccessAt: null,
  openedAt: null,
  openUntil: null,
  openings: 0,
  unsuccessfulAttempts: 0,
  unsuccessfulSince: null,
};

const ids = (records: readonly DeliveryRecord[]) => records.map((record) => record.id);

describeRedis('Redis store: backend-specific behaviour', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisWebhookStore;

  useTestRedis('store', (client, fresh) => {
    redis = client;
    prefix = fresh;
  });
  beforeEach(() => {
    store = createRedisStore({ redis, prefix });
  });
  afterEach(() => store.close());

  it('keeps every key under the prefix and the {store} hash tag', async () => {
    const record = makeRecord({ agencyId: 'agency-a' });
    await store.insertDelivery(record);
    await store.upsertConfig({
      agencyId: 'agency-a',
      webhookUrl: 'https://example.com/hook',
      enabled: true,
      subscribedEventTypes: ['job_created'],
      now: T0,
      newId: 'cfg-1',
      newSigningSecret: 'a'.repeat(64),
    });
    await store.saveCircuit('agency-a', null, CLOSED);
    const base = `${prefix}{store}:`;
    expect(await keysUnder(redis, prefix)).toEqual(
      [
        `${base}cb:agency-a`,
        `${base}cfg:agency-a`,
        `${base}configs`,
        `${base}d:${record.id}`,
        `${base}evt:agency-a`,
        `${base}ix:all:agency-a`,
        `${base}ix:pending:agency-a`,
        `${base}ix-entity:agency-a`,
        `${base}ix-type:agency-a`,
        `${base}list-skew`,
        `${base}pending`,
      ].sort(),
    );
  });

  it('a circuit is a hash of its fields (null times stored empty) that another connection reads back', async () => {
    const open: CircuitState = {
      ...CLOSED,
      status: 'open',
      consecutiveFailures: 5,
      openedAt: T0,
      openUntil: T0 + 30_000,
      unsuccessfulAttempts: 7,
      unsuccessfulSince: T0 - 60_000,
    };
    const saved = await store.saveCircuit('agency-a', null, { ...open, extra: 'not stored' } as CircuitState);
    expect(saved).toEqual({ ...open, agencyId: 'agency-a', version: 1 });
    expect(await redis.hgetall(`${prefix}{store}:cb:agency-a`)).toEqual({
      version: '1',
      status: 'open',
      consecutiveFailures: '5',
      failingSince: '',
      lastFailureAt: '',
      lastSuccessAt: '',
      openedAt: String(T0),
      openUntil: String(T0 + 30_000),
      openings: '0',
      unsuccessfulAttempts: '7',
      unsuccessfulSince: String(T0 - 60_000),
    });
    const other = createRedisStore({ redis: REDIS_URL, prefix });
    try {
      expect(await other.getCircuit('agency-a')).toEqual(saved);
      expect(await other.saveCircuit('agency-a', 1, CLOSED), 'a write from another connection').toMatchObject(
        {
          version: 2,
        },
      );
      expect(await store.saveCircuit('agency-a', 1, open), 'the stale version').toBeNull();
    } finally {
      await other.close();
    }
  });

  it('agency ids that look like key parts never mix two agencies’ lists', async () => {
    const plain = makeRecord({ agencyId: 'x' });
    const tricky = makeRecord({ agencyId: 'pending:x' });
    const braces = makeRecord({ agencyId: '{store}:all:x' });
    for (const record of [plain, tricky, braces]) await store.insertDelivery(record);
    expect(ids(await store.listDeliveries('x', { limit: 10 }))).toEqual([plain.id]);
    expect(ids(await store.listDeliveries('x', { status: 'pending', limit: 10 }))).toEqual([plain.id]);
    expect(ids(await store.listDeliveries('pending:x', { limit: 10 }))).toEqual([tricky.id]);
    expect(ids(await store.listDeliveries('{store}:all:x', { limit: 10 }))).toEqual([braces.id]);
  });

  it('a replay (failed → pending) moves the delivery between status lists and back into the due set', async () => {
    const record = makeRecord({ agencyId: 'agency-a', nextRetryAt: T0 });
    await store.insertDelivery(record);
    const failed = await store.updateDelivery(record.id, { attempt: 0, status: 'pending' }, failedAttempt(1));
    expect(failed?.status).toBe('failed');
    expect(ids(await store.listDeliveries('agency-a', { status: 'failed', limit: 10 }))).toEqual([record.id]);
    expect(await store.listDeliveries('agency-a', { status: 'pending', limit: 10 })).toEqual([]);
    expect(await store.listDuePending(T0 + DAY, 10)).toEqual([]);

    const replay = failedAttempt(1, { status: 'pending', maxAttempts: 2, nextRetryAt: T0 + 5 });
    await store.updateDelivery(record.id, { attempt: 1, status: 'failed' }, replay);
    expect(await store.listDeliveries('agency-a', { status: 'failed', limit: 10 })).toEqual([]);
    expect(ids(await store.listDeliveries('agency-a', { status: 'pending', limit: 10 }))).toEqual([
      record.id,
    ]);
    expect(ids(await store.listDuePending(T0 + 5, 10))).toEqual([record.id]);
    expect(
      await store.purgeDeliveries({ olderThan: T0 + DAY, limit: 10 }),
      'a replayed delivery is not purged',
    ).toBe(0);
  });

  it('finishedTtlMs: each insert deletes a few finished deliveries older than the TTL, with their indexes', async () => {
    const retained = createRedisStore({ redis, prefix, finishedTtlMs: DAY, retentionBatch: 2 });
    const old = Array.from({ length: 3 }, (_, index) =>
      makeRecord({ agencyId: 'agency-a', status: 'success', createdAt: T0 + index, nextRetryAt: null }),
    );
    const oldPending = makeRecord({ agencyId: 'agency-a', createdAt: T0 });
    for (const record of [...old, oldPending]) await retained.insertDelivery(record);

    const first = makeRecord({ agencyId: 'agency-b', createdAt: T0 + 2 * DAY });
    await retained.insertDelivery(first);
    expect(await retained.getDelivery(old[0]!.id), 'oldest finished, deleted').toBeNull();
    expect(await retained.getDelivery(old[1]!.id), 'second oldest, deleted').toBeNull();
    expect(
      await retained.getDelivery(old[2]!.id),
      'beyond the batch of 2, kept for the next insert',
    ).not.toBeNull();

    await retained.insertDelivery(makeRecord({ agencyId: 'agency-b', createdAt: T0 + 2 * DAY }));
    expect(
      ids(await retained.listDeliveries('agency-a', { limit: 10 })),
      'only the pending one is left',
    ).toEqual([oldPending.id]);
    expect(await retained.listDeliveries('agency-a', { status: 'success', limit: 10 })).toEqual([]);
    const again = makeRecord({ agencyId: 'agency-a', eventId: old[0]!.eventId, createdAt: T0 + 2 * DAY });
    expect((await retained.insertDelivery(again)).created, 'the deleted event’s id is free again').toBe(true);
  });

  it('purgeDeliveries also frees the event id for a new delivery', async () => {
    const record = makeRecord({
      agencyId: 'agency-a',
      status: 'failed',
      nextRetryAt: null,
      createdAt: T0 - DAY,
    });
    await store.insertDelivery(record);
    expect(await store.purgeDeliveries({ olderThan: T0, limit: 10 })).toBe(1);
    const again = makeRecord({ agencyId: 'agency-a', eventId: record.eventId });
    expect(await store.insertDelivery(again)).toEqual({ delivery: again, created: true });
    expect(await keysUnder(redis, `${prefix}{store}:finished`)).toEqual([]);
  });

  it('compare-and-set holds across connections: 20 racing writers on 4 clients, exactly one wins', async () => {
    const clients = Array.from({ length: 4 }, () => connectTestRedis());
    const stores = clients.map((client) => createRedisStore({ redis: client, prefix }));
    try {
      const record = makeRecord({ agencyId: 'agency-a' });
      await store.insertDelivery(record);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          stores[index % 4]!.updateDelivery(
            record.id,
            { attempt: 0, status: 'pending' },
            failedAttempt(1, { status: 'pending', nextRetryAt: T0 + index, lastResponseCode: 500 + index }),
          ),
        ),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      expect(await store.getDelivery(record.id)).toEqual(winners[0]);
      expect(ids(await store.listDuePending(T0 + 100, 10))).toEqual([record.id]);
    } finally {
      await Promise.all(clients.map((client) => client.quit()));
    }
  });

  it('carries on after the server forgot its scripts (SCRIPT FLUSH, as after a restart)', async () => {
    const record = makeRecord({ agencyId: 'agency-a' });
    await redis.script('FLUSH');
    await store.insertDelivery(record);
    await redis.script('FLUSH');
    expect(ids(await store.listDeliveries('agency-a', { limit: 5 }))).toEqual([record.id]);
  });

  it('close() leaves an injected client open and quits a client it opened itself', async () => {
    await store.close();
    expect(await redis.ping()).toBe('PONG');
    const owned = createRedisStore({ redis: REDIS_URL, prefix });
    expect(await owned.getConfig('agency-a')).toBeNull();
    await owned.close();
    await owned.close();
    await expect(owned.getConfig('agency-a')).rejects.toThrow();
  });

  it('refuses a client with ioredis keyPrefix (scripts derive key names it would not prefix)', () => {
    const prefixed = new Redis(REDIS_URL, { keyPrefix: 'app:', lazyConnect: true });
    expect(() => createRedisStore({ redis: prefixed })).toThrow(/keyPrefix/);
    expect(() => createRedisStore({ redis: prefixed })).toThrow(
      expect.objectContaining({ code: 'invalid_option', option: 'redis' }),
    );
    expect(() => createRedisStore({ redis: { keyPrefix: 'app:' } })).toThrow(/keyPrefix/);
    expect(() => createRedisStore({ redis: { keyPrefix: 'app:' } })).toThrow(
      expect.objectContaining({ code: 'invalid_option', option: 'redis.keyPrefix' }),
    );
    prefixed.disconnect();
  });

  it('refuses a non-positive finishedTtlMs', () => {
    expect(() => createRedisStore({ redis, prefix, finishedTtlMs: 0 })).toThrow(InvalidOptionError);
    expect(() => createRedisStore({ redis, prefix, finishedTtlMs: 0 })).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        option: 'finishedTtlMs',
        message: expect.stringMatching(/^@svc\/webhooks-redis: /),
      }),
    );
  });
  it('sends the compare-and-sets of one event-loop turn as one script, each judged on its own', async () => {
    const records = Array.from({ length: 40 }, (_, index) =>
      makeRecord({ agencyId: 'agency-a', status: 'pending', attempt: 0, createdAt: T0 + index }),
    );
    for (const record of records) await store.insertDelivery(record);
    // Loads the script, so that the count below is of calls, not of a first NOSCRIPT and its EVAL.
    const warm = makeRecord({ agencyId: 'agency-b', status: 'pending', attempt: 0 });
    await store.insertDelivery(warm);
    await store.updateDelivery(warm.id, { status: 'pending', attempt: 0 }, failedAttempt(1));
    const counter = commandCounter(redis);
    try {
      const results = await Promise.all([
        ...records.map((record) =>
          store.updateDelivery(record.id, { status: 'pending', attempt: 0 }, failedAttempt(1)),
        ),
        // A stale expectation loses, alone; a second update of one delivery waits for the first.
        store.updateDelivery(records[0]!.id, { status: 'pending', attempt: 0 }, failedAttempt(1)),
        store.updateDelivery(records[1]!.id, { status: 'failed', attempt: 1 }, failedAttempt(2)),
      ]);
      expect(results.slice(0, 40).map((saved) => saved?.status)).toEqual(records.map(() => 'failed'));
      expect(results[40]).toBeNull();
      expect(results[41]).toMatchObject({ id: records[1]!.id, attempt: 2 });
      expect(counter.count()).toBe(2);
    } finally {
      counter.stop();
    }
    expect(ids(await store.listDeliveries('agency-a', { status: 'failed', limit: 100 }))).toHaveLength(40);
    expect(await store.listDeliveries('agency-a', { status: 'pending', limit: 100 })).toEqual([]);
  });
});
