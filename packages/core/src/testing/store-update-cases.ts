import { describe, expect, it } from 'vitest';
import type { WebhookStore } from '../adapters/store';
import type { DeliveryRecord, DeliveryUpdate } from '../delivery/delivery';
import { BASE_TIME, makeDeliveryId, makeDeliveryRecord } from './delivery-record-builder';

/** The update a failed first attempt produces: still pending, retry in a minute. */
function firstAttemptFailed(overrides: Partial<DeliveryUpdate> = {}): DeliveryUpdate {
  return {
    status: 'pending',
    attempt: 1,
    maxAttempts: 5,
    nextRetryAt: BASE_TIME + 60_000,
    lastAttemptAt: BASE_TIME,
    deliveredAt: null,
    lastResponseCode: 500,
    lastErrorMessage: 'HTTP 500',
    lastResponseExcerpt: 'Internal Server Error',
    nextAttemptTrigger: 'automatic',
    ...overrides,
  };
}

async function insertFresh(store: WebhookStore): Promise<DeliveryRecord> {
  const record = makeDeliveryRecord();
  await store.insertDelivery(record);
  return record;
}

/** Recording attempts: compare-and-set on (attempt, status). */
export function describeDeliveryUpdateCases(store: () => WebhookStore): void {
  describe('updateDelivery (compare-and-set on attempt and status)', () => {
    it('applies the whole update when attempt and status match, returns the updated record and keeps the other fields', async () => {
      const record = await insertFresh(store());
      const update = firstAttemptFailed();
      const expected = { ...record, ...update };
      const result = await store().updateDelivery(record.id, { attempt: 0, status: 'pending' }, update);
      expect(result, 'returned record').toEqual(expected);
      expect(await store().getDelivery(record.id), 'stored record').toEqual(expected);
    });

    it('chains: each update’s result is the next expectation, through to success', async () => {
      const record = await insertFresh(store());
      await store().updateDelivery(record.id, { attempt: 0, status: 'pending' }, firstAttemptFailed());
      const success = firstAttemptFailed({
        status: 'success',
        attempt: 2,
        nextRetryAt: null,
        lastAttemptAt: BASE_TIME + 60_000,
        deliveredAt: BASE_TIME + 60_000,
        lastResponseCode: 200,
        lastErrorMessage: null,
        lastResponseExcerpt: null,
      });
      const result = await store().updateDelivery(record.id, { attempt: 1, status: 'pending' }, success);
      expect(result).toEqual({ ...record, ...success });
    });

    it('returns null and changes nothing when the expected attempt is stale', async () => {
      const record = await insertFresh(store());
      const afterFirst = await store().updateDelivery(
        record.id,
        { attempt: 0, status: 'pending' },
        firstAttemptFailed(),
      );
      const late = firstAttemptFailed({ lastResponseCode: 502, lastErrorMessage: 'late writer' });
      expect(await store().updateDelivery(record.id, { attempt: 0, status: 'pending' }, late)).toBeNull();
      expect(await store().getDelivery(record.id)).toEqual(afterFirst);
    });

    it('returns null and changes nothing when the expected status is stale', async () => {
      const record = await insertFresh(store());
      const update = firstAttemptFailed({ status: 'failed', nextRetryAt: null });
      expect(await store().updateDelivery(record.id, { attempt: 0, status: 'failed' }, update)).toBeNull();
      expect(await store().getDelivery(record.id)).toEqual(record);
    });

    it('returns null for an unknown delivery and creates nothing', async () => {
      const id = makeDeliveryId();
      expect(
        await store().updateDelivery(id, { attempt: 0, status: 'pending' }, firstAttemptFailed()),
      ).toBeNull();
      expect(await store().getDelivery(id)).toBeNull();
    });

    it('10 concurrent updates with the same expectation: exactly one wins and its update is stored', async () => {
      const record = await insertFresh(store());
      const updates = Array.from({ length: 10 }, (_, index) =>
        firstAttemptFailed({ lastResponseCode: 500 + index }),
      );
      const results = await Promise.all(
        updates.map((update) => store().updateDelivery(record.id, { attempt: 0, status: 'pending' }, update)),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners, 'updates that returned a record').toHaveLength(1);
      expect(await store().getDelivery(record.id), 'stored record is the winner’s').toEqual(winners[0]);
    });
  });
}
