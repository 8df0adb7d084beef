import { describe, expect, it } from 'vitest';
import type { WebhookStore } from '../adapters/store';
import type { DeliveryRecord } from '../delivery/delivery';
import { BASE_TIME, makeDeliveryId, makeDeliveryRecord } from './delivery-record-builder';

/** Every JSON shape a payload can hold, with text a lossy encoding would damage. */
const RICH_PAYLOAD = {
  jobId: 'job-42',
  amount: 1234.56,
  count: 0,
  negative: -17,
  maxSafe: Number.MAX_SAFE_INTEGER,
  flags: { urgent: true, archived: false, note: null },
  tags: ['plumbing', 'émergence', '水道', '🚰'],
  matrix: [
    [1, 2],
    [3, [4, { deep: 'yes' }]],
  ],
  empty: { object: {}, array: [], string: '' },
  text: 'Line 1\nLine 2\t"quoted" \\ backslash — ünïcödé 🚀',
};

/** Three records that together give every field a value, a null and an edge case. */
function roundTripRecords(): DeliveryRecord[] {
  const failed = makeDeliveryRecord({
    eventType: 'quote_approved',
    entityType: 'quote',
    entityId: 'quote-42',
    parentEntityId: 'job-7',
    createdById: 'user-9',
    createdByRole: 'ServiceProvider',
    payload: RICH_PAYLOAD,
    createdOn: BASE_TIME - 1_234,
    createdAt: BASE_TIME,
    status: 'failed',
    attempt: 5,
    maxAttempts: 5,
    nextRetryAt: null,
    lastAttemptAt: BASE_TIME + 7_200_000,
    lastResponseCode: 503,
    lastErrorMessage: 'HTTP 503 — Service Unavailable ✗',
    lastResponseExcerpt: `<h1>Wartung läuft — 稍后再试 🔧</h1>${'é'.repeat(1_900)}`,
  });
  const delivered = makeDeliveryRecord({
    // The string "null" and the empty string must not come back as null.
    entityId: 'null',
    createdByRole: 'Operations',
    createdAt: BASE_TIME + 1,
    status: 'success',
    attempt: 2,
    nextRetryAt: null,
    lastAttemptAt: BASE_TIME + 61_000,
    deliveredAt: BASE_TIME + 61_000,
    lastResponseCode: 204,
    lastErrorMessage: null,
    lastResponseExcerpt: '',
  });
  const bare = makeDeliveryRecord({
    entityId: null,
    parentEntityId: null,
    createdById: null,
    createdByRole: null,
    payload: {},
    createdAt: BASE_TIME + 2,
    nextRetryAt: BASE_TIME + 60_000,
    // A replayed delivery waiting for its attempt: the trigger that attempt is recorded with.
    nextAttemptTrigger: 'replay',
  });
  return [failed, delivered, bare];
}

/** Inserting and reading deliveries: exact round trip, idempotency, copies, transactions. */
export function describeDeliveryWriteCases(store: () => WebhookStore): void {
  describe('inserting and reading deliveries', () => {
    it('insertDelivery and getDelivery round-trip every field exactly (nulls, nested payload, unicode)', async () => {
      const records = roundTripRecords();
      for (const record of records) {
        const result = await store().insertDelivery(structuredClone(record));
        expect(result, `insertDelivery result for ${record.status} record`).toEqual({
          delivery: record,
          created: true,
        });
        expect(await store().getDelivery(record.id), `getDelivery of ${record.status} record`).toEqual(
          record,
        );
      }
      const listed = await store().listDeliveries('agency-a', { limit: 10 });
      expect(listed, 'listDeliveries returns full records too').toEqual([...records].reverse());
    });

    it('getDelivery returns null for an unknown id', async () => {
      await store().insertDelivery(makeDeliveryRecord());
      expect(await store().getDelivery(makeDeliveryId())).toBeNull();
    });

    it('insertDelivery is idempotent on (agencyId, eventId): the second insert returns the first delivery', async () => {
      const first = makeDeliveryRecord({ eventId: 'evt-1' });
      await store().insertDelivery(first);
      const second = makeDeliveryRecord({
        eventId: 'evt-1',
        entityId: 'job-other',
        createdAt: BASE_TIME + 5,
      });
      const result = await store().insertDelivery(second);
      expect(result, 'second insert of the same event').toEqual({ delivery: first, created: false });
      expect(await store().getDelivery(second.id), 'the duplicate was not written').toBeNull();
      expect(await store().listDeliveries('agency-a', { limit: 10 })).toEqual([first]);
    });

    it('20 concurrent inserts of the same event create exactly one delivery and all return it', async () => {
      const candidates = Array.from({ length: 20 }, () => makeDeliveryRecord({ eventId: 'evt-race' }));
      const results = await Promise.all(candidates.map((record) => store().insertDelivery(record)));
      expect(
        results.filter((result) => result.created),
        'inserts answering created: true',
      ).toHaveLength(1);
      const winnerId = results.find((result) => result.created)?.delivery.id;
      expect(new Set(results.map((result) => result.delivery.id)), 'delivery ids returned').toEqual(
        new Set([winnerId]),
      );
      const listed = await store().listDeliveries('agency-a', { limit: 50 });
      expect(listed.map((record) => record.id)).toEqual([winnerId]);
    });

    it('the same eventId in two agencies makes two deliveries', async () => {
      const a = makeDeliveryRecord({ agencyId: 'agency-a', eventId: 'evt-shared' });
      const b = makeDeliveryRecord({ agencyId: 'agency-b', eventId: 'evt-shared' });
      expect((await store().insertDelivery(a)).created, 'agency-a insert').toBe(true);
      expect((await store().insertDelivery(b)).created, 'agency-b insert').toBe(true);
      expect(await store().getDelivery(a.id)).toEqual(a);
      expect(await store().getDelivery(b.id)).toEqual(b);
    });

    it('records are copies: mutating an input or a returned record leaves the stored one unchanged', async () => {
      const record = makeDeliveryRecord({ payload: { nested: { value: 1 }, list: [1] } });
      const pristine = structuredClone(record);
      const { delivery } = await store().insertDelivery(record);
      record.entityId = 'mutated-input';
      (record.payload.nested as { value: number }).value = 2;
      delivery.status = 'failed';
      (delivery.payload.list as number[]).push(2);
      const read = await store().getDelivery(record.id);
      (read?.payload.nested as { value: number }).value = 3;
      const [listed] = await store().listDeliveries('agency-a', { limit: 1 });
      if (listed) listed.attempt = 99;
      expect(await store().getDelivery(record.id)).toEqual(pristine);
    });

    it('insertDelivery with options.transaction rejects with transactions_unsupported and writes nothing (when capabilities.transactions is false)', async (context) => {
      context.skip(
        store().capabilities.transactions,
        'the store supports transactions; its own tests cover them',
      );
      const record = makeDeliveryRecord();
      await expect(store().insertDelivery(record, { transaction: {} })).rejects.toMatchObject({
        code: 'transactions_unsupported',
      });
      expect(await store().getDelivery(record.id)).toBeNull();
    });
  });
}
