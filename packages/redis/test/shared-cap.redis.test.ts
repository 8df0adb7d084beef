import type { Claim } from '@svc/webhooks-core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createRedisQueue, type RedisDeliveryQueue } from '../src/index';
import { connectTestRedis, describeRedis, removeKeys, uniquePrefix } from './redis-test-env';

const T0 = 1_700_000_000_000;
const LEASE = 60_000;
const CAP = 3;
const AGENCIES = ['agency-a', 'agency-b', 'agency-c', 'agency-d', 'agency-e'];
const PER_AGENCY = 40;

/** A queue object on its own connection, as a separate worker process holds one. */
interface Claimer {
  client: Redis;
  queue: RedisDeliveryQueue;
}

describeRedis('Redis queue: perAgencyLimit shared by queue objects on separate connections', () => {
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
    prefix = uniquePrefix('shared-cap');
    claimers = [0, 1].map(() => {
      const client = connectTestRedis();
      return { client, queue: createRedisQueue({ redis: client, prefix, wakeups: false }) };
    });
    const producer = createRedisQueue({ redis: admin, prefix, wakeups: false });
    await Promise.all(
      AGENCIES.flatMap((agencyId) =>
        Array.from({ length: PER_AGENCY }, (_, index) =>
          producer.enqueue({ deliveryId: `${agencyId}-${index}`, agencyId, runAt: T0 - PER_AGENCY + index }),
        ),
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

  const claimFrom = (claimer: Claimer, limit: number): Promise<Claim[]> =>
    claimer.queue.claim({ limit, leaseMs: LEASE, now: T0, perAgencyLimit: CAP });

  it('twenty concurrent claims on two connections hold exactly the cap per agency; an ack frees exactly one place', async () => {
    const batches = await Promise.all(
      Array.from({ length: 20 }, (_, index) => claimFrom(claimers[index % 2]!, 7)),
    );
    const held = batches.flat();
    const perAgency = countByAgency(held);
    expect(perAgency, 'live leases per agency').toEqual(Object.fromEntries(AGENCIES.map((id) => [id, CAP])));
    expect(new Set(held.map((claim) => claim.deliveryId)).size, 'no entry handed out twice').toBe(
      held.length,
    );

    const [first] = held;
    expect(await claimers[0]!.queue.ack(first!)).toBe(true);
    const refill = (
      await Promise.all(Array.from({ length: 6 }, (_, index) => claimFrom(claimers[index % 2]!, 7)))
    ).flat();
    expect(countByAgency(refill), `after one ack of ${first!.agencyId}`).toEqual({ [first!.agencyId]: 1 });
  });

  it('two claim loops racing through 200 entries never hold more than the cap of one agency at once', async () => {
    // Counted up when a claim's reply arrives and down before the ack is sent, so the count
    // here is never above Redis' own: any value above the cap means Redis granted too many.
    const live = new Map<string, number>();
    let highest = 0;
    const acked = new Set<string>();
    const loop = async (claimer: Claimer): Promise<void> => {
      // Stops once everything is acked, or after 50 empty claims in a row (the other loop holds the rest).
      for (let idle = 0; idle < 50 && acked.size < AGENCIES.length * PER_AGENCY; ) {
        const claims = await claimFrom(claimer, 8);
        if (claims.length === 0) {
          idle += 1;
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        idle = 0;
        for (const claim of claims) {
          const count = (live.get(claim.agencyId) ?? 0) + 1;
          live.set(claim.agencyId, count);
          highest = Math.max(highest, count);
        }
        await Promise.all(
          claims.map(async (claim) => {
            await new Promise((resolve) => setImmediate(resolve));
            live.set(claim.agencyId, (live.get(claim.agencyId) ?? 1) - 1);
            expect(await claimer.queue.ack(claim), `ack of ${claim.deliveryId}`).toBe(true);
            acked.add(claim.deliveryId);
          }),
        );
      }
    };
    await Promise.all(claimers.map(loop));
    expect(acked.size, 'every entry delivered').toBe(AGENCIES.length * PER_AGENCY);
    expect(highest, 'most live leases one agency held at once').toBeLessThanOrEqual(CAP);
    expect(
      await admin.exists(claimers[0]!.queue.keys.held, claimers[0]!.queue.keys.capped),
      'no lease count left behind',
    ).toBe(0);
    expect(await claimers[0]!.queue.counts()).toEqual({ queued: 0, claimed: 0 });
  });
});

function countByAgency(claims: readonly Claim[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const claim of claims) counts[claim.agencyId] = (counts[claim.agencyId] ?? 0) + 1;
  return counts;
}
