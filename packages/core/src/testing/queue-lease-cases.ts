import { describe, expect, it } from 'vitest';
import type { Claim, DeliveryQueue } from '../adapters/queue';
import { BASE_TIME } from './delivery-record-builder';
import { LEASE_MS, makeEntry, type QueueHarness } from './queue-harness';

/** Claims the single due entry at `now`, failing clearly when there is not exactly one. */
async function claimOne(queue: DeliveryQueue, now: number, label: string): Promise<Claim> {
  const claims = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now });
  expect(claims, label).toHaveLength(1);
  return claims[0] as Claim;
}

/** What each operation of a claim the caller no longer holds answers. */
async function staleAnswers(queue: DeliveryQueue, claim: Claim, now: number) {
  return {
    renew: await queue.renew(claim, LEASE_MS, now),
    reschedule: await queue.reschedule(claim, now),
    ack: await queue.ack(claim),
  };
}

const REFUSED = { renew: false, reschedule: false, ack: false };

/** Leases and claim ids: expiry, renew, ack, reschedule, and replacement by enqueue. */
export function describeLeaseCases(harness: () => QueueHarness): void {
  describe('leases and claim ids', () => {
    it('after the lease expires the entry is claimable again with a new claimId, and the old claim is refused', async () => {
      const { queue, enqueue, at } = harness();
      const entry = makeEntry();
      await enqueue(entry);
      const first = await claimOne(queue, BASE_TIME, 'first claim');
      const expiry = at(BASE_TIME + LEASE_MS);
      const second = await claimOne(queue, expiry, 'claim once the lease has expired');
      expect(second.deliveryId).toBe(entry.deliveryId);
      expect(second.claimId, 'a re-claim gets a new claimId').not.toBe(first.claimId);
      expect(await staleAnswers(queue, first, expiry), 'renew/reschedule/ack with the expired claim').toEqual(
        REFUSED,
      );
      expect(await queue.ack(second), 'ack by the current holder').toBe(true);
    });

    it('renew extends the lease to now + leaseMs: held past the old expiry, claimable from the new one', async () => {
      const { queue, enqueue, justBefore, at } = harness();
      await enqueue(makeEntry());
      const claim = await claimOne(queue, BASE_TIME, 'first claim');
      const renewedAt = BASE_TIME + 20_000;
      expect(await queue.renew(claim, LEASE_MS, renewedAt), 'renew by the holder').toBe(true);
      const oldExpiry = at(BASE_TIME + LEASE_MS);
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: oldExpiry }),
        'at the old expiry',
      ).toEqual([]);
      const newExpiry = renewedAt + LEASE_MS;
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: justBefore(newExpiry) }),
        'before the new expiry',
      ).toEqual([]);
      await claimOne(queue, at(newExpiry), 'claim at the new expiry');
    });

    it('ack removes the entry for good; a second ack, or any use of the claim after it, returns false', async () => {
      const { queue, enqueue } = harness();
      await enqueue(makeEntry());
      const claim = await claimOne(queue, BASE_TIME, 'claim');
      expect(await queue.ack(claim), 'first ack').toBe(true);
      expect(await queue.ack(claim), 'second ack').toBe(false);
      expect(await staleAnswers(queue, claim, BASE_TIME), 'renew/reschedule/ack after ack').toEqual(REFUSED);
      const farFuture = BASE_TIME + 365 * 86_400_000;
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: farFuture }),
        'claim a year later',
      ).toEqual([]);
    });

    it('a claim on a delivery that was never enqueued is refused', async () => {
      const { queue } = harness();
      const ghost: Claim = {
        deliveryId: makeEntry().deliveryId,
        agencyId: 'agency-a',
        claimId: 'not-a-real-claim',
        runAt: BASE_TIME,
        leaseUntil: BASE_TIME + LEASE_MS,
      };
      expect(await staleAnswers(queue, ghost, BASE_TIME)).toEqual(REFUSED);
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME }),
        'nothing was created',
      ).toEqual([]);
    });

    it('reschedule releases the claim and makes the entry due at the new runAt, even inside the old lease', async () => {
      const { queue, enqueue, justBefore, at, expectTime } = harness();
      await enqueue(makeEntry());
      const claim = await claimOne(queue, BASE_TIME, 'first claim');
      const runAt = BASE_TIME + 10_000;
      expect(await queue.reschedule(claim, runAt), 'reschedule by the holder').toBe(true);
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: justBefore(runAt) }),
        'before the new runAt',
      ).toEqual([]);
      const again = await claimOne(
        queue,
        at(runAt),
        'claim at the new runAt (the old lease would still be live)',
      );
      expectTime(again.runAt, runAt, 'the claim carries the new runAt');
      expect(again.claimId).not.toBe(claim.claimId);
      expect(await queue.ack(claim), 'ack with the released claim').toBe(false);
      expect(await queue.ack(again), 'ack by the new holder').toBe(true);
    });

    it('enqueue of a claimed entry drops the live claim: the old holder is refused, the entry is due at the new runAt', async () => {
      const { queue, enqueue, at } = harness();
      const entry = makeEntry();
      await enqueue(entry);
      const claim = await claimOne(queue, BASE_TIME, 'first claim');
      const runAt = BASE_TIME + 1_000;
      await enqueue({ ...entry, runAt });
      expect(
        await staleAnswers(queue, claim, BASE_TIME + 500),
        'renew/reschedule/ack by the old holder',
      ).toEqual(REFUSED);
      const again = await claimOne(queue, at(runAt), 'claim at the new runAt, inside the old lease');
      expect(again.claimId).not.toBe(claim.claimId);
    });
  });
}
