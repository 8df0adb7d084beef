import { describe, expect, it } from 'vitest';
import { createMemoryQueue } from '../src/memory-queue';
import { createMemoryStore } from '../src/memory-store';
import { makeDeliveryRecord } from '../src/testing/delivery-record-builder';

const NOW = 1_700_000_000_000;

describe('createMemoryQueue: memory-only rules', () => {
  it('the holder of an expired lease that nobody re-claimed can still renew and ack it', async () => {
    const queue = createMemoryQueue();
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-a', runAt: NOW });
    const [claim] = await queue.claim({ limit: 1, leaseMs: 1_000, now: NOW });
    if (!claim) throw new Error('expected a claim');
    expect(await queue.renew(claim, 1_000, NOW + 5_000), 'renew after expiry').toBe(true);
    expect(await queue.claim({ limit: 1, leaseMs: 1_000, now: NOW + 5_500 }), 'held again').toEqual([]);
    expect(await queue.ack(claim)).toBe(true);
  });

  it('enqueue with another agencyId moves the entry to that agency', async () => {
    const queue = createMemoryQueue();
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-a', runAt: NOW });
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-b', runAt: NOW });
    const options = { limit: 10, leaseMs: 1_000, now: NOW };
    expect(await queue.claim({ ...options, excludeAgencies: ['agency-b'] })).toEqual([]);
    const claims = await queue.claim(options);
    expect(claims.map((claim) => [claim.deliveryId, claim.agencyId])).toEqual([['d-1', 'agency-b']]);
  });

  it('claim refuses a lease that is not a positive number of ms', async () => {
    const queue = createMemoryQueue();
    await expect(queue.claim({ limit: 1, leaseMs: 0, now: NOW })).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });

  it('claims across thousands of agencies and entries in due order', async () => {
    const queue = createMemoryQueue();
    const runAts = Array.from({ length: 5_000 }, (_, index) => NOW - ((index * 7_919) % 5_000));
    await Promise.all(
      runAts.map((runAt, index) =>
        queue.enqueue({ deliveryId: `d-${index}`, agencyId: `agency-${index % 1_000}`, runAt }),
      ),
    );
    const claimed: number[] = [];
    for (;;) {
      const claims = await queue.claim({ limit: 64, leaseMs: 30_000, now: NOW });
      if (claims.length === 0) break;
      claimed.push(...claims.map((claim) => claim.runAt));
    }
    expect(claimed).toEqual([...runAts].sort((a, b) => a - b));
  });
});

describe('createMemoryStore: memory-only rules', () => {
  it('refuses a second delivery with an existing id (store_error)', async () => {
    const store = createMemoryStore();
    const record = makeDeliveryRecord();
    await store.insertDelivery(record);
    await expect(store.insertDelivery({ ...record, eventId: 'evt-other' })).rejects.toMatchObject({
      code: 'store_error',
    });
  });
});
