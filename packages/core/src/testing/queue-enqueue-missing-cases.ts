import { describe, expect, it } from 'vitest';
import type { DeliveryQueue } from '../adapters/queue';
import { BASE_TIME } from './delivery-record-builder';
import { LEASE_MS, makeEntry, type QueueHarness } from './queue-harness';

const claimAt = (queue: DeliveryQueue, now: number) => queue.claim({ limit: 10, leaseMs: LEASE_MS, now });

/** enqueueMissing (optional): entries only for deliveries that have none, never dropping a claim. */
export function describeEnqueueMissingCases(harness: () => QueueHarness): void {
  describe('enqueueMissing', () => {
    it('adds an entry for each delivery that has none (acked), and returns how many it added', async (context) => {
      const { queue, enqueueAll } = harness();
      context.skip(!queue.enqueueMissing, 'the queue has no enqueueMissing');
      const entries = [makeEntry(), makeEntry()];
      await enqueueAll(entries);
      for (const claim of await claimAt(queue, BASE_TIME)) expect(await queue.ack(claim)).toBe(true);
      expect(await claimAt(queue, BASE_TIME + 1_000), 'nothing queued after the acks').toEqual([]);

      const again = entries.map((entry) => ({ ...entry, runAt: BASE_TIME + 2_000 }));
      expect(await queue.enqueueMissing!(again)).toBe(2);
      expect(await claimAt(queue, BASE_TIME + 1_000), 'not due before its runAt').toEqual([]);
      const claimed = await claimAt(queue, BASE_TIME + 2_000);
      expect(claimed.map((claim) => claim.deliveryId).sort()).toEqual(
        entries.map((entry) => entry.deliveryId).sort(),
      );
    });

    it('leaves a queued entry as it is: its runAt is not replaced', async (context) => {
      const { queue, enqueue } = harness();
      context.skip(!queue.enqueueMissing, 'the queue has no enqueueMissing');
      const entry = makeEntry({ runAt: BASE_TIME + 5_000 });
      await enqueue(entry);
      expect(await queue.enqueueMissing!([{ ...entry, runAt: BASE_TIME }])).toBe(0);
      expect(await claimAt(queue, BASE_TIME), 'still due at its own runAt only').toEqual([]);
      expect(await claimAt(queue, BASE_TIME + 5_000)).toHaveLength(1);
    });

    it('never drops a live claim: the holder can still renew and ack, and nobody else claims it', async (context) => {
      const { queue, enqueue } = harness();
      context.skip(!queue.enqueueMissing, 'the queue has no enqueueMissing');
      const entry = makeEntry();
      await enqueue(entry);
      const [claim] = await claimAt(queue, BASE_TIME);
      expect(claim?.deliveryId).toBe(entry.deliveryId);
      expect(await queue.enqueueMissing!([entry])).toBe(0);
      expect(await claimAt(queue, BASE_TIME + 1), 'not claimable by another worker').toEqual([]);
      expect(await queue.renew(claim!, LEASE_MS, BASE_TIME + 1)).toBe(true);
      expect(await queue.ack(claim!)).toBe(true);
    });
  });
}
