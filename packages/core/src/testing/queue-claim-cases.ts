import { describe, expect, it } from 'vitest';
import type { Claim } from '../adapters/queue';
import { BASE_TIME } from './delivery-record-builder';
import { LEASE_MS, makeEntry, type QueueHarness } from './queue-harness';

function deliveryIds(claims: readonly Claim[]): string[] {
  return claims.map((claim) => claim.deliveryId).sort();
}

/** Due times, limits, exclusion and replacement: which entries a claim returns. */
export function describeClaimCases(harness: () => QueueHarness): void {
  describe('claiming due entries', () => {
    it('an empty queue claims nothing', async () => {
      expect(await harness().queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME })).toEqual([]);
    });

    it('an entry is not claimable before its runAt and is claimable from runAt, with a claim describing it', async () => {
      const { queue, enqueue, justBefore, at, expectTime } = harness();
      const runAt = BASE_TIME + 10_000;
      const entry = makeEntry({ runAt });
      await enqueue(entry);
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: justBefore(runAt) }),
        'claim before runAt',
      ).toEqual([]);
      const now = at(runAt);
      const claims = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now });
      expect(claims, 'claim at runAt').toHaveLength(1);
      const [claim] = claims as [Claim];
      expect(claim).toMatchObject({ deliveryId: entry.deliveryId, agencyId: 'agency-a' });
      expectTime(claim.runAt, runAt, 'claim.runAt');
      expect(
        typeof claim.claimId === 'string' && claim.claimId.length > 0,
        'claimId is a non-empty string',
      ).toBe(true);
      expectTime(claim.leaseUntil, now + LEASE_MS, 'claim.leaseUntil = now + leaseMs');
    });

    it('claims at most `limit` entries, the earliest runAt first', async () => {
      const { queue, enqueueAll } = harness();
      const entries = [3, 1, 5, 2, 4].map((minutes) => makeEntry({ runAt: BASE_TIME - minutes * 60_000 }));
      await enqueueAll(entries);
      const byRunAt = [...entries].sort((a, b) => a.runAt - b.runAt).map((entry) => entry.deliveryId);
      const first = await queue.claim({ limit: 2, leaseMs: LEASE_MS, now: BASE_TIME });
      expect(deliveryIds(first), 'first claim (limit 2)').toEqual(byRunAt.slice(0, 2).sort());
      const second = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME });
      expect(deliveryIds(second), 'second claim').toEqual(byRunAt.slice(2).sort());
    });

    it('claimed entries are not claimable again while their lease is live', async () => {
      const { queue, enqueueAll, justBefore } = harness();
      await enqueueAll([makeEntry(), makeEntry()]);
      const claims = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME });
      expect(claims).toHaveLength(2);
      expect(await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME }), 'claim at once').toEqual(
        [],
      );
      const beforeExpiry = justBefore(BASE_TIME + LEASE_MS);
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: beforeExpiry }),
        'claim just before expiry',
      ).toEqual([]);
    });

    it('excludeAgencies skips those agencies without using up the limit (when capabilities.excludeAgencies)', async (context) => {
      const { queue, enqueueAll } = harness();
      context.skip(!queue.capabilities.excludeAgencies, 'capabilities.excludeAgencies is false');
      const busy = Array.from({ length: 5 }, (_, index) =>
        makeEntry({ agencyId: 'agency-a', runAt: BASE_TIME - 1_000 + index }),
      );
      const others = [makeEntry({ agencyId: 'agency-b' }), makeEntry({ agencyId: 'agency-c' })];
      await enqueueAll([...busy, ...others]);
      const claims = await queue.claim({
        limit: 2,
        leaseMs: LEASE_MS,
        now: BASE_TIME,
        excludeAgencies: ['agency-a'],
      });
      expect(deliveryIds(claims), 'claim excluding agency-a (whose entries are due first)').toEqual(
        others.map((entry) => entry.deliveryId).sort(),
      );
      const rest = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME });
      expect(deliveryIds(rest), 'agency-a entries are still queued').toHaveLength(5);
    });

    it('enqueue of a queued entry replaces its runAt: one entry, due at the new time', async () => {
      const { queue, enqueue, justBefore, at } = harness();
      const entry = makeEntry({ runAt: BASE_TIME });
      await enqueue(entry);
      await enqueue({ ...entry, runAt: BASE_TIME + 5_000 });
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: justBefore(BASE_TIME + 5_000) }),
        'at the old runAt',
      ).toEqual([]);
      const claims = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: at(BASE_TIME + 5_000) });
      expect(
        claims.map((claim) => claim.deliveryId),
        'at the new runAt',
      ).toEqual([entry.deliveryId]);
      const later = makeEntry({ runAt: BASE_TIME + 60_000 });
      await enqueue(later);
      await enqueue({ ...later, runAt: BASE_TIME });
      const earlier = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: at(BASE_TIME) });
      expect(
        earlier.map((claim) => claim.deliveryId),
        'moved earlier',
      ).toEqual([later.deliveryId]);
    });

    it('enqueue with options.transaction rejects with transactions_unsupported (when capabilities.transactions is false)', async (context) => {
      const { queue } = harness();
      context.skip(
        queue.capabilities.transactions,
        'the queue supports transactions; its own tests cover them',
      );
      await expect(queue.enqueue(makeEntry(), { transaction: {} })).rejects.toMatchObject({
        code: 'transactions_unsupported',
      });
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME }),
        'nothing was enqueued',
      ).toEqual([]);
    });
  });
}
