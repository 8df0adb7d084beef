import { describe, expect, it } from 'vitest';
import type { DeliveryQueue, QueueEntry } from '../adapters/queue';
import { BASE_TIME } from './delivery-record-builder';
import { LEASE_MS, makeEntry, type QueueHarness } from './queue-harness';

/** `count` due entries spread over `agencies` agencies, with distinct past runAt values. */
function dueEntries(count: number, agencies: number): QueueEntry[] {
  return Array.from({ length: count }, (_, index) =>
    makeEntry({ agencyId: `agency-${index % agencies}`, runAt: BASE_TIME - count + index }),
  );
}

/** Claims in batches until the queue answers with nothing; returns every claimed delivery id. */
async function claimUntilEmpty(queue: DeliveryQueue, limit: number): Promise<string[]> {
  const claimed: string[] = [];
  for (let guard = 0; guard < 10_000; guard++) {
    const claims = await queue.claim({ limit, leaseMs: LEASE_MS, now: BASE_TIME });
    if (claims.length === 0) return claimed;
    for (const claim of claims) claimed.push(claim.deliveryId);
  }
  throw new Error('claim kept returning entries after 10,000 batches: are claimed entries claimable again?');
}

function duplicatesOf(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => seen.has(id) || !seen.add(id));
}

/** Many claimers and many entries. */
export function describeLoadCases(harness: () => QueueHarness): void {
  describe('under load', () => {
    it('8 concurrent claimers over 200 due entries never receive the same entry; all 200 are claimed once', async () => {
      const { queue, enqueueAll } = harness();
      const entries = dueEntries(200, 10);
      await enqueueAll(entries);
      const perClaimer = await Promise.all(Array.from({ length: 8 }, () => claimUntilEmpty(queue, 5)));
      const claimed = perClaimer.flat();
      expect(duplicatesOf(claimed), 'entries claimed by more than one claimer (or twice)').toEqual([]);
      expect(new Set(claimed), 'claimed entries').toEqual(new Set(entries.map((entry) => entry.deliveryId)));
    });

    it('1,000 entries drain completely with claim and ack', async () => {
      const { queue, enqueueAll } = harness();
      const entries = dueEntries(1_000, 20);
      await enqueueAll(entries);
      const acked: string[] = [];
      for (let guard = 0; guard < 1_000; guard++) {
        const claims = await queue.claim({ limit: 100, leaseMs: LEASE_MS, now: BASE_TIME });
        if (claims.length === 0) break;
        const answers = await Promise.all(claims.map((claim) => queue.ack(claim)));
        expect(answers.every(Boolean), 'every ack of a fresh claim returns true').toBe(true);
        acked.push(...claims.map((claim) => claim.deliveryId));
      }
      expect(duplicatesOf(acked), 'entries acked twice').toEqual([]);
      expect(acked, 'number of entries acked').toHaveLength(1_000);
      const afterLeases = BASE_TIME + 10 * LEASE_MS;
      expect(
        await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: afterLeases }),
        'left after draining',
      ).toEqual([]);
    });
  });
}
