import { describe, expect, it } from 'vitest';
import type { WebhookStore } from '../adapters/store';
import type { DeliveryRecord, DeliveryStatus } from '../delivery/delivery';
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

/** Moves a delivery to `status` the way a worker or a replay does (compare-and-set on what was read). */
async function moveTo(
  store: WebhookStore,
  record: DeliveryRecord,
  status: DeliveryStatus,
): Promise<DeliveryRecord> {
  const current = (await store.getDelivery(record.id)) as DeliveryRecord;
  const finished = status !== 'pending';
  const moved = await store.updateDelivery(
    record.id,
    { attempt: current.attempt, status: current.status },
    {
      status,
      attempt: current.attempt + (finished ? 1 : 0),
      maxAttempts: current.maxAttempts,
      nextRetryAt: finished ? null : BASE_TIME,
      lastAttemptAt: BASE_TIME,
      deliveredAt: status === 'success' ? BASE_TIME : null,
      lastResponseCode: status === 'success' ? 200 : 500,
      lastErrorMessage: status === 'success' ? null : 'HTTP 500',
      lastResponseExcerpt: null,
      nextAttemptTrigger: status === 'pending' ? 'replay' : 'automatic',
    },
  );
  if (!moved) throw new Error(`could not move ${record.id} to ${status}`);
  return moved;
}

/** Old deliveries of both finished statuses, the failed ones older, and one old pending. */
function statusFixture() {
  const old = (status: DeliveryStatus, daysAgo: number, index: number) =>
    makeDeliveryRecord({
      status,
      createdAt: BASE_TIME - daysAgo * DAY_MS + index,
      nextRetryAt: status === 'pending' ? BASE_TIME : null,
    });
  return {
    failed: Array.from({ length: 4 }, (_, index) => old('failed', 20, index)),
    success: Array.from({ length: 3 }, (_, index) => old('success', 10, index)),
    pending: old('pending', 30, 0),
  };
}

/** Retention by status: `purgeDeliveries({ status })`. */
function describeStatusPurgeCases(store: () => WebhookStore): void {
  describe('purgeDeliveries with status', () => {
    it('deletes only deliveries of that status, never older ones of the other status or pending ones', async (context) => {
      context.skip(!store().capabilities.purge, 'capabilities.purge is false');
      const { failed, success, pending } = statusFixture();
      await insertAll(store(), [...failed, ...success, pending]);
      const purge = (status: 'success' | 'failed') =>
        store().purgeDeliveries?.({ olderThan: BASE_TIME, limit: 100, status });
      expect(await purge('success'), 'success purged').toBe(3);
      for (const record of success) expect(await store().getDelivery(record.id)).toBeNull();
      for (const record of [...failed, pending]) expect(await store().getDelivery(record.id)).toEqual(record);
      expect(await purge('success'), 'nothing left of that status').toBe(0);
      expect(await purge('failed'), 'failed purged').toBe(4);
      expect(ids(await store().listDeliveries('agency-a', { limit: 100 }))).toEqual([pending.id]);
    });

    it('is not held up by older deliveries of the other status: each batch is the oldest of its own', async (context) => {
      context.skip(!store().capabilities.purge, 'capabilities.purge is false');
      const { failed, success } = statusFixture();
      await insertAll(store(), [...failed, ...success]);
      const purge = () => store().purgeDeliveries?.({ olderThan: BASE_TIME, limit: 2, status: 'success' });
      expect([await purge(), await purge(), await purge()]).toEqual([2, 1, 0]);
      for (const record of failed) expect(await store().getDelivery(record.id)).toEqual(record);
    });

    it('follows status changes: a delivery finished later is purged under its new status, a replayed one not at all', async (context) => {
      context.skip(!store().capabilities.purge, 'capabilities.purge is false');
      const old = { createdAt: BASE_TIME - DAY_MS, nextRetryAt: BASE_TIME - DAY_MS };
      const delivered = makeDeliveryRecord(old);
      const gaveUp = makeDeliveryRecord(old);
      const replayed = makeDeliveryRecord({ ...old, status: 'failed', nextRetryAt: null });
      await insertAll(store(), [delivered, gaveUp, replayed]);
      await moveTo(store(), delivered, 'success');
      await moveTo(store(), gaveUp, 'failed');
      await moveTo(store(), replayed, 'pending');
      const purge = (status: 'success' | 'failed') =>
        store().purgeDeliveries?.({ olderThan: BASE_TIME, limit: 100, status });
      expect(await purge('failed'), 'failed: the one that gave up, not the replayed one').toBe(1);
      expect(await store().getDelivery(gaveUp.id)).toBeNull();
      expect((await store().getDelivery(replayed.id))?.status).toBe('pending');
      expect(await purge('success')).toBe(1);
      expect(await store().getDelivery(delivered.id)).toBeNull();
      await moveTo(store(), replayed, 'failed');
      expect(await purge('success'), 'failed again: not a success').toBe(0);
      expect(await purge('failed'), 'failed again: purged as failed').toBe(1);
      expect(await store().listDeliveries('agency-a', { limit: 100 })).toEqual([]);
    });
  });
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

  describeStatusPurgeCases(store);
}
