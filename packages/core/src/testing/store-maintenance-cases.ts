import { describe, expect, it } from 'vitest';
import type { WebhookStore } from '../adapters/store';
import type { DeliveryRecord } from '../delivery/delivery';
import { BASE_TIME, makeDeliveryRecord } from './delivery-record-builder';

const DAY_MS = 86_400_000;

async function insertAll(store: WebhookStore, records: readonly DeliveryRecord[]): Promise<void> {
  for (const record of records) await store.insertDelivery(record);
}

function ids(records: readonly DeliveryRecord[]): string[] {
  return records.map((record) => record.id);
}

/**
 * Pending deliveries due at various times. Ids are made in an order unrelated to
 * the due times, so a store that sorts by id instead of `nextRetryAt` fails.
 */
function dueFixture() {
  const dueAtCutoff = makeDeliveryRecord({ nextRetryAt: BASE_TIME });
  const notYetDue = makeDeliveryRecord({ nextRetryAt: BASE_TIME + 1 });
  const dueEarliest = makeDeliveryRecord({ agencyId: 'agency-b', nextRetryAt: BASE_TIME - 300 });
  const dueMiddle = makeDeliveryRecord({ nextRetryAt: BASE_TIME - 100 });
  const dueSecond = makeDeliveryRecord({ agencyId: 'agency-c', nextRetryAt: BASE_TIME - 200 });
  const ignored = [
    makeDeliveryRecord({ status: 'success', nextRetryAt: BASE_TIME - 500, deliveredAt: BASE_TIME - 500 }),
    makeDeliveryRecord({ status: 'failed', nextRetryAt: BASE_TIME - 400 }),
    makeDeliveryRecord({ status: 'pending', nextRetryAt: null }),
  ];
  return {
    all: [dueAtCutoff, notYetDue, dueEarliest, dueMiddle, dueSecond, ...ignored],
    dueInOrder: [dueEarliest, dueSecond, dueMiddle, dueAtCutoff],
  };
}

/** Finished and pending deliveries around a purge cutoff of BASE_TIME. */
function purgeFixture() {
  const oldSuccess = makeDeliveryRecord({
    status: 'success',
    createdAt: BASE_TIME - 30 * DAY_MS,
    nextRetryAt: null,
  });
  const oldFailed = makeDeliveryRecord({
    agencyId: 'agency-b',
    status: 'failed',
    createdAt: BASE_TIME - 10 * DAY_MS,
    nextRetryAt: null,
  });
  const oldPending = makeDeliveryRecord({ status: 'pending', createdAt: BASE_TIME - 40 * DAY_MS });
  const atCutoff = makeDeliveryRecord({ status: 'success', createdAt: BASE_TIME, nextRetryAt: null });
  const recent = makeDeliveryRecord({ status: 'failed', createdAt: BASE_TIME + DAY_MS, nextRetryAt: null });
  return { purged: [oldSuccess, oldFailed], kept: [oldPending, atCutoff, recent] };
}

/** Recovery sweep and retention: listDuePending and purgeDeliveries. */
export function describeMaintenanceCases(store: () => WebhookStore): void {
  describe('listDuePending', () => {
    it('returns pending deliveries with nextRetryAt <= dueBefore of every agency, oldest due first', async () => {
      const { all, dueInOrder } = dueFixture();
      await insertAll(store(), all);
      expect(ids(await store().listDuePending(BASE_TIME, 100))).toEqual(ids(dueInOrder));
    });

    it('returns at most `limit`, the oldest due', async () => {
      const { all, dueInOrder } = dueFixture();
      await insertAll(store(), all);
      expect(ids(await store().listDuePending(BASE_TIME, 2))).toEqual(ids(dueInOrder.slice(0, 2)));
    });

    it('returns full records and reflects updates (a delivered one is no longer due)', async () => {
      const { all, dueInOrder } = dueFixture();
      await insertAll(store(), all);
      const [first, ...rest] = dueInOrder as [DeliveryRecord, ...DeliveryRecord[]];
      await store().updateDelivery(
        first.id,
        { attempt: 0, status: 'pending' },
        {
          status: 'success',
          attempt: 1,
          maxAttempts: 5,
          nextRetryAt: null,
          lastAttemptAt: BASE_TIME,
          deliveredAt: BASE_TIME,
          lastResponseCode: 200,
          lastErrorMessage: null,
          lastResponseExcerpt: null,
          nextAttemptTrigger: 'automatic',
        },
      );
      expect(await store().listDuePending(BASE_TIME, 100)).toEqual(rest);
    });
  });

  describe('purgeDeliveries', () => {
    it('deletes finished deliveries created before olderThan, never pending ones, and returns the count', async (context) => {
      context.skip(!store().capabilities.purge, 'capabilities.purge is false');
      const { purged, kept } = purgeFixture();
      await insertAll(store(), [...purged, ...kept]);
      expect(await store().purgeDeliveries?.({ olderThan: BASE_TIME, limit: 100 }), 'deleted count').toBe(2);
      for (const record of purged) expect(await store().getDelivery(record.id), 'purged record').toBeNull();
      for (const record of kept) expect(await store().getDelivery(record.id), 'kept record').toEqual(record);
      const listed = await store().listDeliveries('agency-a', { limit: 100 });
      expect(ids(listed).sort(), 'agency-a list after purge').toEqual(ids(kept).sort());
      expect(await store().listDeliveries('agency-b', { limit: 100 }), 'agency-b list after purge').toEqual(
        [],
      );
    });

    it('deletes at most `limit` per call; repeated calls finish the job', async (context) => {
      context.skip(!store().capabilities.purge, 'capabilities.purge is false');
      const old = Array.from({ length: 5 }, (_, index) =>
        makeDeliveryRecord({ status: 'success', createdAt: BASE_TIME - DAY_MS + index, nextRetryAt: null }),
      );
      await insertAll(store(), old);
      const purge = () => store().purgeDeliveries?.({ olderThan: BASE_TIME, limit: 2 });
      expect([await purge(), await purge(), await purge(), await purge()]).toEqual([2, 2, 1, 0]);
      expect(await store().listDeliveries('agency-a', { limit: 100 })).toEqual([]);
    });
  });
}
