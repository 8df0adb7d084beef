import { describe, expect, it } from 'vitest';
import type { ListDeliveriesOptions, WebhookStore } from '../adapters/store';
import type { DeliveryRecord, DeliveryStatus } from '../delivery/delivery';
import { BASE_TIME, makeDeliveryId, makeDeliveryRecord } from './delivery-record-builder';

const STATUSES: readonly DeliveryStatus[] = ['pending', 'success', 'failed'];

/** `count` records of one agency in ascending id order, statuses cycling pending, success, failed. */
function agencyRecords(agencyId: string, count: number): DeliveryRecord[] {
  return Array.from({ length: count }, (_, index) =>
    makeDeliveryRecord({
      agencyId,
      status: STATUSES[index % 3] as DeliveryStatus,
      createdAt: BASE_TIME + index,
      nextRetryAt: index % 3 === 0 ? BASE_TIME + index : null,
    }),
  );
}

/** Inserts one by one in a scrambled order, so a store cannot pass by returning insertion order. */
export async function insertScrambled(
  store: WebhookStore,
  records: readonly DeliveryRecord[],
): Promise<void> {
  const order = records.map((record, index) => ({ record, key: (index * 7919) % records.length }));
  order.sort((a, b) => a.key - b.key);
  for (const { record } of order) await store.insertDelivery(record);
}

/** The records' ids in the order a list returns them: descending id. */
export function newestFirst(records: readonly DeliveryRecord[]): string[] {
  return records.map((record) => record.id).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
}

/** Follows `beforeId` from page to page until an empty page; returns each page's ids. */
export async function pageThrough(
  store: WebhookStore,
  agencyId: string,
  options: Omit<ListDeliveriesOptions, 'beforeId'>,
): Promise<string[][]> {
  const pages: string[][] = [];
  let beforeId: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await store.listDeliveries(agencyId, { ...options, beforeId });
    if (page.length === 0) return pages;
    pages.push(page.map((record) => record.id));
    beforeId = page[page.length - 1]?.id;
  }
  throw new Error('listDeliveries kept returning records after 100 pages: is beforeId ignored?');
}

/** The delivery log: newest first, status filter, limit and keyset paging, per agency. */
export function describeDeliveryListCases(store: () => WebhookStore): void {
  describe('listing deliveries', () => {
    it('lists an agency’s deliveries newest first (descending id) and never another agency’s', async () => {
      const a = agencyRecords('agency-a', 12);
      const b = agencyRecords('agency-b', 8);
      await insertScrambled(store(), [...a, ...b]);
      const listedA = await store().listDeliveries('agency-a', { limit: 100 });
      expect(listedA.map((record) => record.id)).toEqual(newestFirst(a));
      const listedB = await store().listDeliveries('agency-b', { limit: 100 });
      expect(listedB.map((record) => record.id)).toEqual(newestFirst(b));
      expect(
        await store().listDeliveries('agency-c', { limit: 100 }),
        'an agency without deliveries',
      ).toEqual([]);
    });

    it('returns at most `limit` records, the newest ones', async () => {
      const records = agencyRecords('agency-a', 7);
      await insertScrambled(store(), records);
      const page = await store().listDeliveries('agency-a', { limit: 3 });
      expect(page.map((record) => record.id)).toEqual(newestFirst(records).slice(0, 3));
    });

    it('filters by status, newest first', async () => {
      const records = agencyRecords('agency-a', 9);
      await insertScrambled(store(), [...records, ...agencyRecords('agency-b', 3)]);
      for (const status of STATUSES) {
        const listed = await store().listDeliveries('agency-a', { status, limit: 100 });
        const expected = newestFirst(records.filter((record) => record.status === status));
        expect(
          listed.map((record) => record.id),
          `status ${status}`,
        ).toEqual(expected);
      }
    });

    it('keyset paging with beforeId covers 45 deliveries exactly once, in order', async () => {
      const records = agencyRecords('agency-a', 45);
      await insertScrambled(store(), [...records, ...agencyRecords('agency-b', 5)]);
      const pages = await pageThrough(store(), 'agency-a', { limit: 10 });
      expect(
        pages.map((page) => page.length),
        'page sizes',
      ).toEqual([10, 10, 10, 10, 5]);
      expect(pages.flat()).toEqual(newestFirst(records));
    });

    it('keyset paging with a status filter covers each status’s deliveries exactly once, in order', async () => {
      const records = agencyRecords('agency-a', 45);
      await insertScrambled(store(), records);
      for (const status of STATUSES) {
        const pages = await pageThrough(store(), 'agency-a', { status, limit: 4 });
        expect(
          pages.map((page) => page.length),
          `page sizes for ${status}`,
        ).toEqual([4, 4, 4, 3]);
        const expected = newestFirst(records.filter((record) => record.status === status));
        expect(pages.flat(), `ids for ${status}`).toEqual(expected);
      }
    });

    it('beforeId need not be a stored id: paging continues from where that id would sort', async () => {
      const older = makeDeliveryRecord();
      const missing = makeDeliveryId();
      const newer = makeDeliveryRecord();
      await insertScrambled(store(), [older, newer]);
      const page = await store().listDeliveries('agency-a', { limit: 10, beforeId: missing });
      expect(page.map((record) => record.id)).toEqual([older.id]);
    });
  });
}
