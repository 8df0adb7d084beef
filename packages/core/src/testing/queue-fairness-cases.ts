import { describe, expect, it } from 'vitest';
import type { Claim, QueueEntry } from '../adapters/queue';
import { BASE_TIME } from './delivery-record-builder';
import { LEASE_MS, makeEntry, type QueueHarness } from './queue-harness';

function countByAgency(claims: readonly Claim[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const claim of claims) counts[claim.agencyId] = (counts[claim.agencyId] ?? 0) + 1;
  return counts;
}

/** `count` entries of one agency, due one ms apart from `firstRunAt` on. */
function backlog(agencyId: string, count: number, firstRunAt: number): QueueEntry[] {
  return Array.from({ length: count }, (_, index) => makeEntry({ agencyId, runAt: firstRunAt + index }));
}

/** Round robin across agencies, and the per-agency cap: who gets the next claim. */
export function describeFairnessCases(harness: () => QueueHarness): void {
  describe('fairness across agencies', () => {
    it("an agency's older backlog does not delay another agency's entry beyond one round", async () => {
      const { queue, enqueueAll, enqueue } = harness();
      await enqueueAll(backlog('agency-a', 60, BASE_TIME - 60_000));
      const lone = makeEntry({ agencyId: 'agency-b', runAt: BASE_TIME });
      await enqueue(lone);
      const claims = await queue.claim({ limit: 2, leaseMs: LEASE_MS, now: BASE_TIME });
      expect(
        claims.map((claim) => claim.deliveryId),
        "agency-b's entry is in the first claim of 2, although 60 of agency-a's are due earlier",
      ).toContain(lone.deliveryId);
    });

    it('one claim takes one entry per agency per round', async () => {
      const { queue, enqueueAll } = harness();
      await enqueueAll([
        ...backlog('agency-a', 5, BASE_TIME - 30_000),
        ...backlog('agency-b', 5, BASE_TIME - 20_000),
        ...backlog('agency-c', 5, BASE_TIME - 10_000),
      ]);
      const claims = await queue.claim({ limit: 6, leaseMs: LEASE_MS, now: BASE_TIME });
      expect(countByAgency(claims), 'entries per agency in a claim of 6').toEqual({
        'agency-a': 2,
        'agency-b': 2,
        'agency-c': 2,
      });
    });

    it('within an agency, the earliest runAt comes first', async () => {
      const { queue, enqueueAll } = harness();
      const entries = [3, 1, 2].map((minutes) => makeEntry({ runAt: BASE_TIME - minutes * 60_000 }));
      await enqueueAll([...entries, ...backlog('agency-b', 3, BASE_TIME - 600_000)]);
      const claims = await queue.claim({ limit: 4, leaseMs: LEASE_MS, now: BASE_TIME });
      const ofA = claims.filter((claim) => claim.agencyId === 'agency-a').map((claim) => claim.deliveryId);
      const earliestTwo = [entries[0], entries[2]].map((entry) => entry?.deliveryId);
      expect(ofA.sort(), "agency-a's two earliest entries").toEqual(earliestTwo.sort());
    });

    it('the rotation carries on from one claim to the next', async () => {
      const { queue, enqueueAll } = harness();
      await enqueueAll([
        ...backlog('agency-a', 4, BASE_TIME - 30_000),
        ...backlog('agency-b', 4, BASE_TIME - 20_000),
        ...backlog('agency-c', 4, BASE_TIME - 10_000),
      ]);
      const served: string[] = [];
      for (let round = 0; round < 6; round += 1) {
        const claims = await queue.claim({ limit: 1, leaseMs: LEASE_MS, now: BASE_TIME });
        expect(claims, `claim ${round + 1} of 6 (limit 1)`).toHaveLength(1);
        for (const claim of claims) {
          served.push(claim.agencyId);
          await queue.ack(claim);
        }
      }
      expect(new Set(served.slice(0, 3)).size, `the first three claims went to ${served.slice(0, 3)}`).toBe(
        3,
      );
      expect(new Set(served.slice(3, 6)).size, `the next three claims went to ${served.slice(3, 6)}`).toBe(3);
    });

    it('perAgencyLimit caps the live claims an agency holds; an ack frees a place', async () => {
      const { queue, enqueueAll } = harness();
      await enqueueAll([...backlog('agency-a', 6, BASE_TIME - 10_000), ...backlog('agency-b', 1, BASE_TIME)]);
      const first = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: 2 });
      expect(countByAgency(first), 'first claim, perAgencyLimit 2').toEqual({ 'agency-a': 2, 'agency-b': 1 });
      if (queue.capabilities.sharedAgencyLimit) {
        const second = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: 2 });
        expect(second, 'agency-a is at its cap while two leases are live').toEqual([]);
        await queue.ack(first.find((claim) => claim.agencyId === 'agency-a') as Claim);
        const third = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: 2 });
        expect(countByAgency(third), 'after one ack of agency-a').toEqual({ 'agency-a': 1 });
        const afterExpiry = await queue.claim({
          limit: 10,
          leaseMs: LEASE_MS,
          now: BASE_TIME + LEASE_MS + 1_000,
          perAgencyLimit: 2,
        });
        expect(
          countByAgency(afterExpiry),
          "once every lease has ended, expired leases count for nothing (agency-b's is taken over too)",
        ).toEqual({ 'agency-a': 2, 'agency-b': 1 });
      }
    });

    it('perAgencyLimit holds across queue objects on one backend (when capabilities.sharedAgencyLimit)', async (context) => {
      const { queue, enqueueAll, sibling } = harness();
      context.skip(!queue.capabilities.sharedAgencyLimit, 'capabilities.sharedAgencyLimit is false');
      context.skip(!sibling, 'the factory gave no sibling queue');
      await enqueueAll(backlog('agency-a', 8, BASE_TIME - 10_000));
      const mine = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: 3 });
      const theirs = await (sibling as NonNullable<typeof sibling>)().claim({
        limit: 10,
        leaseMs: LEASE_MS,
        now: BASE_TIME,
        perAgencyLimit: 3,
      });
      expect(mine.length + theirs.length, 'claims of agency-a across two queue objects, cap 3').toBe(3);
    });
  });
}
