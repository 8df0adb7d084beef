import type { Claim } from '@svc/webhooks-core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createRedisQueue, type RedisDeliveryQueue } from '../src/index';
import { connectTestRedis, describeRedis, removeKeys, uniquePrefix } from './redis-test-env';

const T0 = 1_700_000_000_000;
const ENTRIES = 3_000;
const CLAIMERS = 6;

/** Each claimer has its own connection, as separate worker processes would. */
interface Claimer {
  client: Redis;
  queue: RedisDeliveryQueue;
}

describeRedis('Redis queue: concurrent claimers on separate connections', () => {
  let admin: Redis;
  let prefix: string;
  let claimers: Claimer[];

  beforeAll(() => {
    admin = connectTestRedis();
  });
  afterAll(async () => {
    await admin.quit();
  });
  beforeEach(async () => {
    prefix = uniquePrefix('claim');
    claimers = Array.from({ length: CLAIMERS }, () => {
      const client = connectTestRedis();
      return { client, queue: createRedisQueue({ redis: client, prefix, wakeups: false }) };
    });
    const producer = createRedisQueue({ redis: admin, prefix, wakeups: false });
    await Promise.all(
      Array.from({ length: ENTRIES }, (_, index) =>
        producer.enqueue({
          deliveryId: `d${index}`,
          agencyId: `agency-${index % 10}`,
          runAt: T0 - (index % 97),
        }),
      ),
    );
  });
  afterEach(async () => {
    for (const { client, queue } of claimers) {
      await queue.close();
      await client.quit();
    }
    await removeKeys(admin, prefix);
  });

  it(`${CLAIMERS} claimers racing over ${ENTRIES} entries: each entry is claimed exactly once and acked`, async () => {
    const claimedBy = new Map<string, number>();
    const duplicates: string[] = [];
    const failedAcks: string[] = [];
    await Promise.all(
      claimers.map(async ({ queue }, claimer) => {
        for (;;) {
          const claims = await queue.claim({ limit: 25, leaseMs: 60_000, now: T0 });
          if (claims.length === 0) return;
          for (const claim of claims) {
            if (claimedBy.has(claim.deliveryId)) duplicates.push(claim.deliveryId);
            claimedBy.set(claim.deliveryId, claimer);
          }
          const acks = await Promise.all(claims.map((claim) => queue.ack(claim)));
          acks.forEach((ok, index) => {
            if (!ok) failedAcks.push(claims[index]!.deliveryId);
          });
        }
      }),
    );
    expect(duplicates, 'entries claimed twice while a lease was live').toEqual([]);
    expect(failedAcks, 'acks refused').toEqual([]);
    expect(claimedBy.size).toBe(ENTRIES);
    expect(new Set(claimedBy.values()).size, 'every claimer got work').toBe(CLAIMERS);
    expect(await claimers[0]!.queue.counts()).toEqual({ queued: 0, claimed: 0 });
  });

  it('claimers that die holding entries: their leases expire, others finish the work, each entry acked exactly once', async () => {
    const LEASE = 5_000;
    const acked = new Map<string, number>();
    const live = new Map<string, Claim>();
    const overlaps: string[] = [];
    let now = T0;

    const take = (claims: Claim[]): void => {
      for (const claim of claims) {
        const holder = live.get(claim.deliveryId);
        if (holder && holder.leaseUntil > now) overlaps.push(claim.deliveryId);
        live.set(claim.deliveryId, claim);
      }
    };
    const finish = async (queue: RedisDeliveryQueue, claim: Claim): Promise<void> => {
      if (await queue.ack(claim)) acked.set(claim.deliveryId, (acked.get(claim.deliveryId) ?? 0) + 1);
      live.delete(claim.deliveryId);
    };

    // Phase 1: every claimer takes work; claimers 0 and 1 "crash" with what they hold.
    await Promise.all(
      claimers.map(async ({ queue }, claimer) => {
        for (let round = 0; round < 4; round++) {
          const claims = await queue.claim({ limit: 50, leaseMs: LEASE, now });
          take(claims);
          if (claimer >= 2) await Promise.all(claims.map((claim) => finish(queue, claim)));
        }
      }),
    );
    const stranded = [...live.keys()];
    expect(stranded.length, 'entries held by the crashed claimers').toBeGreaterThan(0);

    // Phase 2: before the leases end, survivors drain what is free but never the stranded entries.
    const survivors = claimers.slice(2);
    const drain = async (): Promise<void> => {
      await Promise.all(
        survivors.map(async ({ queue }) => {
          for (;;) {
            const claims = await queue.claim({ limit: 50, leaseMs: LEASE, now });
            if (claims.length === 0) return;
            take(claims);
            await Promise.all(claims.map((claim) => finish(queue, claim)));
          }
        }),
      );
    };
    now = T0 + LEASE - 1;
    await drain();
    expect([...live.keys()].sort(), 'stranded entries are untouched while their leases live').toEqual(
      stranded.sort(),
    );

    // Phase 3: the leases have ended; the stranded entries are reclaimed and finished.
    now = T0 + LEASE;
    await drain();
    const lateAcks = await Promise.all(
      stranded.slice(0, 5).map((id) =>
        claimers[0]!.queue.ack({
          deliveryId: id,
          agencyId: 'x',
          claimId: 'stale',
          runAt: T0,
          leaseUntil: T0,
        }),
      ),
    );
    expect(lateAcks, 'acks with made-up claim ids').toEqual([false, false, false, false, false]);
    expect(overlaps, 'entries claimed while another lease was live').toEqual([]);
    expect(acked.size).toBe(ENTRIES);
    expect(
      [...acked.values()].every((count) => count === 1),
      'each entry acked exactly once',
    ).toBe(true);
  });
});
