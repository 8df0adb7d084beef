import { describe, expect, it } from 'vitest';
import type { ListDeliveriesOptions, WebhookStore } from '../adapters/store';
import type { DeliveryRecord, DeliveryStatus } from '../delivery/delivery';
import { BASE_TIME, makeDeliveryRecord } from './delivery-record-builder';
import { insertScrambled, newestFirst, pageThrough } from './store-list-cases';

type Filters = Omit<ListDeliveriesOptions, 'limit' | 'beforeId'>;

const STATUSES: readonly DeliveryStatus[] = ['pending', 'success', 'failed'];
/** `job_created` is a prefix of `job_created_late`: an exact filter must tell them apart. */
const TYPES = ['job_created', 'job_created_late', 'quote_approved', 'job_cancelled'] as const;
/** `job-1` is a prefix of `job-10`; `a:b` holds a separator; one is not ASCII; null has no entity. */
const ENTITIES = ['job-1', 'job-10', 'a:b', null, 'ünï-1'] as const;
/** 3 × 4 × 5: the fixture holds every combination of status, type and entity exactly once. */
const FIXTURE_SIZE = STATUSES.length * TYPES.length * ENTITIES.length;
/** Creation times one second apart, in id order. */
const SECOND = 1_000;

/**
 * `FIXTURE_SIZE` deliveries of one agency in ascending id order, one a second;
 * delivery `i` has status `i mod 3`, type `i mod 4` and entity `i mod 5`.
 */
export function filterFixture(agencyId: string): DeliveryRecord[] {
  return Array.from({ length: FIXTURE_SIZE }, (_, index) =>
    makeDeliveryRecord({
      agencyId,
      status: STATUSES[index % STATUSES.length] as DeliveryStatus,
      eventType: TYPES[index % TYPES.length] as string,
      entityId: ENTITIES[index % ENTITIES.length] as string | null,
      createdAt: BASE_TIME + index * SECOND,
      nextRetryAt: index % STATUSES.length === 0 ? BASE_TIME : null,
    }),
  );
}

/** What a list with `filters` must return, computed from the records themselves. */
export function expectedIds(records: readonly DeliveryRecord[], filters: Filters): string[] {
  return newestFirst(
    records.filter(
      (record) =>
        (filters.status === undefined || record.status === filters.status) &&
        (filters.eventType === undefined || record.eventType === filters.eventType) &&
        (filters.entityId === undefined || record.entityId === filters.entityId) &&
        (filters.createdSince === undefined || record.createdAt >= filters.createdSince) &&
        (filters.createdBefore === undefined || record.createdAt < filters.createdBefore),
    ),
  );
}

async function listIds(store: WebhookStore, agencyId: string, options: ListDeliveriesOptions) {
  return (await store.listDeliveries(agencyId, options)).map((record) => record.id);
}

const WINDOWS: readonly Filters[] = [
  {},
  { createdSince: BASE_TIME + 10 * SECOND, createdBefore: BASE_TIME + 50 * SECOND },
  { createdSince: BASE_TIME + 30 * SECOND },
  { createdBefore: BASE_TIME + 20 * SECOND },
];

/** Every combination of the filters: status (or none) × type (or none) × entity (or none) × window. */
export function everyFilterCombination(): Filters[] {
  const combinations: Filters[] = [];
  for (const status of [undefined, ...STATUSES])
    for (const eventType of [undefined, 'job_created'])
      for (const entityId of [undefined, 'job-1'])
        for (const window of WINDOWS) combinations.push({ status, eventType, entityId, ...window });
  return combinations;
}

/** The delivery log's filters: event type, entity, creation window, alone and combined with status and paging. */
export function describeDeliveryListFilterCases(store: () => WebhookStore): void {
  describe('listing deliveries with filters', () => {
    it('filters by event type exactly, newest first: job_created is not job_created_late', async () => {
      const records = filterFixture('agency-a');
      await insertScrambled(store(), records);
      for (const eventType of TYPES) {
        expect(await listIds(store(), 'agency-a', { eventType, limit: 100 }), eventType).toEqual(
          expectedIds(records, { eventType }),
        );
      }
    });

    it('filters by entity exactly (job-1 is not job-10), and never matches a delivery without one', async () => {
      const records = filterFixture('agency-a');
      await insertScrambled(store(), records);
      for (const entityId of ENTITIES) {
        if (entityId === null) continue;
        const listed = await listIds(store(), 'agency-a', { entityId, limit: 100 });
        expect(listed, entityId).toEqual(expectedIds(records, { entityId }));
        expect(listed, entityId).toHaveLength(FIXTURE_SIZE / ENTITIES.length);
      }
    });

    it('createdSince is inclusive and createdBefore exclusive, at the exact millisecond', async () => {
      const records = filterFixture('agency-a');
      await insertScrambled(store(), records);
      const at = (index: number) => records[index]?.createdAt as number;
      const window = { createdSince: at(10), createdBefore: at(20), limit: 100 };
      const listed = await listIds(store(), 'agency-a', window);
      expect(listed).toEqual(newestFirst(records.slice(10, 20)));
      expect(await listIds(store(), 'agency-a', { createdSince: at(59), limit: 100 })).toEqual([
        records[59]?.id,
      ]);
      expect(await listIds(store(), 'agency-a', { createdBefore: at(1), limit: 100 })).toEqual([
        records[0]?.id,
      ]);
      expect(
        await listIds(store(), 'agency-a', {
          createdSince: at(10) - 1,
          createdBefore: at(10) + 1,
          limit: 100,
        }),
        'a 2 ms window around one delivery',
      ).toEqual([records[10]?.id]);
    });

    it('every combination with status, paged 4 at a time, visits exactly the matching deliveries in order', async () => {
      const records = filterFixture('agency-a');
      await insertScrambled(store(), [...records, ...filterFixture('agency-b')]);
      for (const filters of everyFilterCombination()) {
        const expected = expectedIds(records, filters);
        const pages = await pageThrough(store(), 'agency-a', { ...filters, limit: 4 });
        const label = JSON.stringify(filters);
        expect(pages.flat(), label).toEqual(expected);
        expect(
          pages.slice(0, -1).every((page) => page.length === 4),
          `${label}: only the last page is short`,
        ).toBe(true);
      }
    });

    it('never returns another agency’s deliveries, however alike they are', async () => {
      const a = filterFixture('agency-a');
      const b = filterFixture('agency-b');
      await insertScrambled(store(), [...a, ...b]);
      const samples: Filters[] = [
        { eventType: 'quote_approved' },
        { entityId: 'a:b' },
        { createdSince: BASE_TIME, createdBefore: BASE_TIME + 5 * SECOND },
        { eventType: 'job_created', entityId: 'job-1', status: 'failed' },
      ];
      for (const filters of samples) {
        const label = JSON.stringify(filters);
        expect(await listIds(store(), 'agency-b', { ...filters, limit: 100 }), label).toEqual(
          expectedIds(b, filters),
        );
        expect(await listIds(store(), 'agency-c', { ...filters, limit: 100 }), `agency-c ${label}`).toEqual(
          [],
        );
      }
    });

    it('answers an empty page when nothing matches', async () => {
      const records = filterFixture('agency-a');
      await insertScrambled(store(), records);
      const last = (records.at(-1) as DeliveryRecord).createdAt;
      const empty: Filters[] = [
        { eventType: 'invoice_approved' },
        { eventType: 'job' },
        { entityId: 'job-2' },
        { entityId: 'job-' },
        { createdBefore: BASE_TIME },
        { createdSince: last + 1 },
        { createdSince: BASE_TIME + 5 * SECOND, createdBefore: BASE_TIME + 5 * SECOND },
        {
          eventType: 'job_created',
          entityId: 'job-10',
          status: 'pending',
          createdBefore: BASE_TIME + 3 * SECOND,
        },
      ];
      for (const filters of empty) {
        expect(
          await listIds(store(), 'agency-a', { ...filters, limit: 100 }),
          JSON.stringify(filters),
        ).toEqual([]);
      }
    });

    it('filters on createdAt and orders by id even where the two disagree', async () => {
      // Ids ascending, creation times descending: a store that ranged over ids by time would miss these.
      const records = Array.from({ length: 12 }, (_, index) =>
        makeDeliveryRecord({ createdAt: BASE_TIME + (11 - index) * SECOND, eventType: 'job_created' }),
      );
      await insertScrambled(store(), records);
      const window = { createdSince: BASE_TIME + 2 * SECOND, createdBefore: BASE_TIME + 6 * SECOND };
      expect(await listIds(store(), 'agency-a', { ...window, limit: 100 })).toEqual(
        expectedIds(records, window),
      );
      const pages = await pageThrough(store(), 'agency-a', { ...window, eventType: 'job_created', limit: 3 });
      expect(pages.flat()).toEqual(expectedIds(records, window));
      expect(await listIds(store(), 'agency-a', { createdBefore: BASE_TIME + SECOND, limit: 1 })).toEqual([
        records[11]?.id,
      ]);
    });

    it('a status change moves a delivery between the pages of a type and status filter', async () => {
      const records = filterFixture('agency-a');
      await insertScrambled(store(), records);
      const moved = records.find(
        (record) => record.status === 'pending' && record.eventType === 'job_created',
      );
      if (!moved) throw new Error('the fixture has a pending job_created delivery');
      const filter = { eventType: 'job_created', limit: 100 };
      const saved = await store().updateDelivery(
        moved.id,
        { attempt: moved.attempt, status: 'pending' },
        {
          status: 'success',
          attempt: 1,
          maxAttempts: moved.maxAttempts,
          nextRetryAt: null,
          lastAttemptAt: BASE_TIME,
          deliveredAt: BASE_TIME,
          lastResponseCode: 200,
          lastErrorMessage: null,
          lastResponseExcerpt: null,
          nextAttemptTrigger: 'automatic',
        },
      );
      expect(saved?.status).toBe('success');
      const after = records.map((record) =>
        record.id === moved.id ? { ...record, status: 'success' as const } : record,
      );
      for (const status of STATUSES) {
        expect(await listIds(store(), 'agency-a', { ...filter, status }), status).toEqual(
          expectedIds(after, { eventType: 'job_created', status }),
        );
      }
    });
  });
}
