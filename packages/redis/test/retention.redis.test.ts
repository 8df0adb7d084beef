import type { DeliveryRecord, RecoveryRecord } from '@svc/webhooks-core';
import { makeDeliveryRecord, makeRecoveryRecord } from '@svc/webhooks-core/testing';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRedisStore, type RedisWebhookStore } from '../src/index';
import { describeRedis, useTestRedis } from './redis-test-env';

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

describeRedis('Redis retention: per-status finished sets, and the mixed set of earlier releases', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisWebhookStore;

  useTestRedis('retention', (client, fresh) => {
    redis = client;
    prefix = fresh;
  });
  beforeEach(() => {
    store = createRedisStore({ redis, prefix });
  });
  afterEach(() => store.close());

  /** Finished deliveries `daysAgo` before T0, one ms apart, inserted through the store. */
  async function finished(status: 'success' | 'failed', count: number, daysAgo: number) {
    const records = Array.from({ length: count }, (_, index) =>
      makeDeliveryRecord({ status, createdAt: T0 - daysAgo * DAY + index, nextRetryAt: null }),
    );
    for (const record of records) await store.insertDelivery(record);
    return records;
  }

  /** Moves every entry of the per-status sets into the mixed set, as an earlier release left them. */
  async function asWrittenBeforeTheUpgrade(): Promise<void> {
    const { finished: legacy, finishedSuccess, finishedFailed } = store.keys;
    for (const set of [finishedSuccess, finishedFailed]) {
      const entries = await redis.zrange(set, 0, -1, 'WITHSCORES');
      for (let index = 0; index < entries.length; index += 2) {
        await redis.zadd(legacy, entries[index + 1]!, entries[index]!);
      }
      await redis.del(set);
    }
  }

  const exists = async (record: DeliveryRecord) => (await store.getDelivery(record.id)) !== null;

  it('files each finished delivery in its own status’s set, scored by createdAt, and moves it on replay', async () => {
    const [success] = await finished('success', 1, 10);
    const [failed] = await finished('failed', 1, 20);
    const { finished: legacy, finishedSuccess, finishedFailed } = store.keys;
    expect(await redis.zrange(finishedSuccess, 0, -1, 'WITHSCORES')).toEqual([
      success!.id,
      String(success!.createdAt),
    ]);
    expect(await redis.zrange(finishedFailed, 0, -1)).toEqual([failed!.id]);
    expect(await redis.exists(legacy), 'nothing new in the mixed set').toBe(0);
    const replay = {
      status: 'pending' as const,
      attempt: 0,
      maxAttempts: 5,
      nextRetryAt: T0,
      lastAttemptAt: null,
      deliveredAt: null,
      lastResponseCode: null,
      lastErrorMessage: null,
      lastResponseExcerpt: null,
      nextAttemptTrigger: 'replay' as const,
    };
    expect(await store.updateDelivery(failed!.id, { attempt: 0, status: 'failed' }, replay)).not.toBeNull();
    expect(await redis.zrange(finishedFailed, 0, -1), 'a replayed delivery leaves the failed set').toEqual(
      [],
    );
  });

  it('drains the mixed set: entries of the purged status deleted, the others moved to their own set', async () => {
    const failed = await finished('failed', 3, 40);
    const success = await finished('success', 3, 35);
    await asWrittenBeforeTheUpgrade();
    const purge = (status: 'success' | 'failed', olderThan: number) =>
      store.purgeDeliveries({ olderThan, limit: 2, status });

    // The failed entries are older, so they come first in the mixed set: moved, not deleted, not counted.
    expect([await purge('success', T0), await purge('success', T0), await purge('success', T0)]).toEqual([
      2, 1, 0,
    ]);
    for (const record of success) expect(await exists(record)).toBe(false);
    for (const record of failed) expect(await exists(record), 'failed kept').toBe(true);
    expect(await redis.exists(store.keys.finished), 'mixed set drained').toBe(0);
    expect(await redis.zcard(store.keys.finishedFailed)).toBe(3);

    expect(await purge('failed', T0 - 50 * DAY), 'failed younger than its cutoff stay').toBe(0);
    expect([await purge('failed', T0), await purge('failed', T0)]).toEqual([2, 1]);
    expect(await store.listDeliveries('agency-a', { limit: 10 })).toEqual([]);
  });

  it('reads at most 4 × limit mixed entries per call, and still makes progress on the next', async () => {
    const failed = await finished('failed', 20, 40);
    const [success] = await finished('success', 1, 35);
    await asWrittenBeforeTheUpgrade();
    const purge = () => store.purgeDeliveries({ olderThan: T0, limit: 2, status: 'success' });
    expect(await purge(), 'the first call reads 8 failed entries and stops').toBe(0);
    expect(await redis.zcard(store.keys.finishedFailed)).toBe(8);
    expect([await purge(), await purge()]).toEqual([0, 1]);
    expect(await exists(success!)).toBe(false);
    expect(await redis.zcard(store.keys.finishedFailed)).toBe(failed.length);
  });

  it('finishedTtlMs drains the mixed set too, and a purge without status takes both', async () => {
    const old = [...(await finished('failed', 2, 40)), ...(await finished('success', 2, 40))];
    await asWrittenBeforeTheUpgrade();
    const young = await finished('success', 2, 1);
    const retained = createRedisStore({ redis, prefix, finishedTtlMs: 30 * DAY, retentionBatch: 3 });
    await retained.insertDelivery(makeDeliveryRecord({ createdAt: T0 }));
    expect((await Promise.all(old.map(exists))).filter(Boolean), 'one left beyond the batch').toHaveLength(1);
    expect(await store.purgeDeliveries({ olderThan: T0 - 30 * DAY, limit: 10 })).toBe(1);
    for (const record of young) expect(await exists(record)).toBe(true);
    await retained.close();
  });
});

describeRedis(
  'Redis retention of bulk recoveries: the finished set, and recoveries finished before it',
  () => {
    let redis: Redis;
    let prefix: string;
    let store: RedisWebhookStore;

    useTestRedis('recovery-retention', (client, fresh) => {
      redis = client;
      // A bracket in the prefix: the SCAN pattern must escape it, or `[x]` would match a plain `x`.
      prefix = `${fresh}[x]:`;
    });
    beforeEach(() => {
      store = createRedisStore({ redis, prefix });
    });
    afterEach(() => store.close());

    const finishedSet = () => `${store.keys.base}rc-finished`;
    const indexedFlag = () => `${store.keys.base}rc-finished-indexed`;

    /** A recovery of `agencyId` stored running, then finished at `completedAt` unless null. */
    async function recovery(agencyId: string, completedAt: number | null): Promise<RecoveryRecord> {
      const record = makeRecoveryRecord({ agencyId });
      await store.createRecovery(record);
      if (completedAt === null) return record;
      const status = completedAt % 2 === 0 ? 'completed' : 'cancelled';
      return (await store.updateRecovery(record.id, 1, { status, completedAt })) as RecoveryRecord;
    }

    it('files a recovery in the finished set by completedAt when it finishes, never while it runs', async () => {
      const running = await recovery('agency-a', null);
      await store.updateRecovery(running.id, 1, { replayed: 10, cursorId: 'dlv-1', leaseUntil: T0 });
      expect(await redis.zcard(finishedSet()), 'a running recovery, walked').toBe(0);
      const done = await store.updateRecovery(running.id, 2, { status: 'cancelled', completedAt: T0 - DAY });
      expect(await redis.zrange(finishedSet(), 0, -1, 'WITHSCORES')).toEqual([running.id, String(T0 - DAY)]);
      // A walker closing the cancelled recovery's open page writes it again: it stays filed.
      await store.updateRecovery(running.id, done!.version, { replayed: 20, pageEndId: null });
      expect(await redis.zscore(finishedSet(), running.id)).toBe(String(T0 - DAY));
      expect(await store.purgeRecoveries({ olderThan: T0, limit: 10 })).toBe(1);
      expect(await redis.exists(`${store.keys.base}rc:${running.id}`)).toBe(0);
      expect(
        await redis.zcard(`${store.keys.base}rc-list:agency-a`),
        'the agency list entry goes with it',
      ).toBe(0);
      expect(await redis.zcard(finishedSet())).toBe(0);
    });

    it('the first purge files recoveries finished under earlier releases, then purges them like the others', async () => {
      const old = [await recovery('agency-a', T0 - 40 * DAY), await recovery('agency-b', T0 - 30 * DAY - 1)];
      const young = await recovery('agency-a', T0 - DAY);
      const running = await recovery('agency-c', null);
      // As a release before the finished set left them: hashes and lists, no set, no flag.
      await redis.del(finishedSet(), indexedFlag());
      const lookalike = `${prefix.replace('[x]', 'x')}{store}:rc:rcv-lookalike`;
      await redis.hset(lookalike, { id: 'rcv-lookalike', status: 'completed', completedAt: '1' });

      const upgraded = createRedisStore({ redis, prefix });
      expect(await upgraded.purgeRecoveries({ olderThan: T0 - 30 * DAY, limit: 10 })).toBe(2);
      expect(await redis.get(indexedFlag()), 'the flag').toBe('1');
      for (const record of old) expect(await upgraded.getRecovery(record.id)).toBeNull();
      expect(await upgraded.getRecovery(young.id)).toEqual(young);
      expect(await upgraded.getRecovery(running.id)).toEqual(running);
      expect(await redis.zrange(finishedSet(), 0, -1), 'only the young one is left filed').toEqual([
        young.id,
      ]);
      expect((await upgraded.listRecoveries('agency-a', { limit: 10 })).map((record) => record.id)).toEqual([
        young.id,
      ]);
      expect(await redis.exists(lookalike), 'another prefix’s key is not ours').toBe(1);
      await redis.del(lookalike);
      await upgraded.close();
    });
  },
);
