import { randomBytes } from 'node:crypto';
import { describe, expect, it, type TestContext } from 'vitest';
import type { CountDeliveriesFilter, WebhookStore } from '../adapters/store';
import type { DeliveryRecord, DeliveryStatus } from '../delivery/delivery';
import { BASE_TIME, makeDeliveryRecord } from './delivery-record-builder';
import { insertScrambled, pageThrough } from './store-list-cases';
import { everyFilterCombination, expectedIds, filterFixture } from './store-list-filter-cases';

const SECOND = 1_000;
const TYPES = ['job_created', 'job_created_late', 'quote_approved', 'job_cancelled'] as const;
const ENTITIES = ['job-1', 'job-10', 'a:b', 'ünï-1'] as const;
const STATUSES: readonly DeliveryStatus[] = ['pending', 'success', 'failed'];

/** The store's count, or a skip (with a note) when the store has none: the method is optional. */
function counter(store: WebhookStore, context: TestContext) {
  context.skip(
    !store.countDeliveries,
    'the store has no countDeliveries, an optional method (core pages listDeliveries instead)',
  );
  return (agencyId: string, filter: CountDeliveriesFilter) =>
    store.countDeliveries?.(agencyId, filter) as Promise<number>;
}

/** How many deliveries paging `listDeliveries` with `filter` visits: what the count must equal. */
async function pagedCount(store: WebhookStore, agencyId: string, filter: CountDeliveriesFilter) {
  return (await pageThrough(store, agencyId, { ...filter, limit: 7 })).flat().length;
}

/** Agency a's count of `filter`, its paged list and the records it should match all agree. */
async function expectCountAgrees(
  store: WebhookStore,
  count: ReturnType<typeof counter>,
  records: readonly DeliveryRecord[],
  filter: CountDeliveriesFilter,
): Promise<void> {
  const label = JSON.stringify(filter);
  const expected = expectedIds(records, filter).length;
  expect(await pagedCount(store, 'agency-a', filter), `${label}: the list`).toBe(expected);
  expect(await count('agency-a', filter), label).toBe(expected);
}

/**
 * A lowercase UUIDv7 whose own time is `time` (ms), as the service's ids are:
 * then a store may narrow a window by id, and its edges are where it can go wrong.
 */
function idAt(time: number): string {
  const hex = time.toString(16).padStart(12, '0');
  const random = randomBytes(10).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${random.slice(0, 3)}-8${random.slice(3, 6)}-${random.slice(6, 18)}`;
}

/** The bulk recovery's count: `countDeliveries` equals the list's matches, filter by filter. */
export function describeDeliveryCountCases(store: () => WebhookStore): void {
  describe('counting deliveries', () => {
    it('counts exactly what paging the list returns, for every combination of the filters', async (context) => {
      const count = counter(store(), context);
      const records = filterFixture('agency-a');
      await insertScrambled(store(), [...records, ...filterFixture('agency-b')]);
      for (const filter of everyFilterCombination()) await expectCountAgrees(store(), count, records, filter);
    });

    it('counts each filter alone, exactly: job_created is not job_created_late, job-1 not job-10', async (context) => {
      const count = counter(store(), context);
      const records = filterFixture('agency-a');
      await insertScrambled(store(), records);
      const alone: CountDeliveriesFilter[] = [
        {},
        ...STATUSES.map((status) => ({ status })),
        ...TYPES.map((eventType) => ({ eventType })),
        ...ENTITIES.map((entityId) => ({ entityId })),
        { eventType: 'job' },
        { entityId: 'job-' },
        { createdSince: BASE_TIME + 30 * SECOND },
        { createdBefore: BASE_TIME + 20 * SECOND },
      ];
      for (const filter of alone) await expectCountAgrees(store(), count, records, filter);
    });

    it('createdSince is inclusive and createdBefore exclusive, at the exact millisecond', async (context) => {
      const count = counter(store(), context);
      const records = filterFixture('agency-a');
      await insertScrambled(store(), records);
      const at = (index: number) => records[index]?.createdAt as number;
      expect(await count('agency-a', { createdSince: at(10), createdBefore: at(20) })).toBe(10);
      expect(await count('agency-a', { createdSince: at(59) })).toBe(1);
      expect(await count('agency-a', { createdBefore: at(1) })).toBe(1);
      expect(await count('agency-a', { createdSince: at(10) - 1, createdBefore: at(10) + 1 })).toBe(1);
      expect(await count('agency-a', { createdSince: at(10), createdBefore: at(10) }), 'empty window').toBe(
        0,
      );
      expect(await count('agency-a', { createdSince: at(59) + 1 })).toBe(0);
      expect(await count('agency-a', { createdBefore: at(0) })).toBe(0);
    });

    it('counts 0 for an agency without deliveries, and never another agency’s', async (context) => {
      const count = counter(store(), context);
      const a = filterFixture('agency-a');
      const b = filterFixture('agency-b').slice(0, 25);
      await insertScrambled(store(), [...a, ...b]);
      const samples: CountDeliveriesFilter[] = [
        {},
        { status: 'failed' },
        { eventType: 'quote_approved' },
        { entityId: 'a:b' },
        { createdSince: BASE_TIME, createdBefore: BASE_TIME + 5 * SECOND },
        {
          status: 'failed',
          eventType: 'job_created',
          createdSince: BASE_TIME,
          createdBefore: BASE_TIME + 50 * SECOND,
        },
      ];
      for (const filter of samples) {
        const label = JSON.stringify(filter);
        expect(await count('agency-b', filter), label).toBe(expectedIds(b, filter).length);
        expect(await count('agency-b', filter), label).toBe(await pagedCount(store(), 'agency-b', filter));
        expect(await count('agency-c', filter), `agency-c ${label}`).toBe(0);
      }
    });

    it('counts on createdAt even where it and the id disagree', async (context) => {
      const count = counter(store(), context);
      // Ids ascending, creation times descending: a store that ranged over ids by time would miss these.
      const records = Array.from({ length: 12 }, (_, index) =>
        makeDeliveryRecord({
          createdAt: BASE_TIME + (11 - index) * SECOND,
          status: 'failed',
          nextRetryAt: null,
        }),
      );
      await insertScrambled(store(), records);
      const window = { createdSince: BASE_TIME + 2 * SECOND, createdBefore: BASE_TIME + 6 * SECOND };
      for (const filter of [window, { ...window, status: 'failed' as const, eventType: 'job_created' }]) {
        expect(await count('agency-a', filter)).toBe(4);
        expect(await pagedCount(store(), 'agency-a', filter)).toBe(4);
      }
    });

    it('counts windows at the edges of ids made a few ms off their createdAt, as the service’s are', async (context) => {
      const count = counter(store(), context);
      const gaps = [0, 3, -2, 1, -3, 2];
      const records = Array.from({ length: 48 }, (_, index) => {
        const createdAt = BASE_TIME + index * SECOND;
        return makeDeliveryRecord({
          id: idAt(createdAt + (gaps[index % gaps.length] as number)),
          createdAt,
          status: STATUSES[index % STATUSES.length] as DeliveryStatus,
          eventType: index % 4 === 0 ? 'job_cancelled' : 'job_created',
          nextRetryAt: index % STATUSES.length === 0 ? BASE_TIME : null,
        });
      });
      await insertScrambled(store(), records);
      const at = (index: number) => records[index]?.createdAt as number;
      const windows: CountDeliveriesFilter[] = [];
      for (const offset of [-3, -1, 0, 1, 3]) {
        windows.push({ createdSince: at(4) + offset, createdBefore: at(40) + offset });
        windows.push({ createdSince: at(7) + offset });
        windows.push({ createdBefore: at(31) + offset });
      }
      for (const window of windows) {
        for (const filter of [
          window,
          { ...window, status: 'failed' as const },
          { ...window, eventType: 'job_cancelled' },
        ]) {
          await expectCountAgrees(store(), count, records, filter);
        }
      }
    });

    it('a status change moves a delivery from one status’s count to the other’s', async (context) => {
      const count = counter(store(), context);
      const records = filterFixture('agency-a');
      await insertScrambled(store(), records);
      const moved = records.find(
        (record) => record.status === 'pending' && record.eventType === 'job_created',
      );
      if (!moved) throw new Error('the fixture has a pending job_created delivery');
      const window = { createdSince: BASE_TIME, createdBefore: moved.createdAt + 1 };
      const before = await count('agency-a', { ...window, status: 'failed', eventType: 'job_created' });
      const saved = await store().updateDelivery(
        moved.id,
        { attempt: moved.attempt, status: 'pending' },
        {
          status: 'failed',
          attempt: 1,
          maxAttempts: 1,
          nextRetryAt: null,
          lastAttemptAt: BASE_TIME,
          deliveredAt: null,
          lastResponseCode: 500,
          lastErrorMessage: 'HTTP 500',
          lastResponseExcerpt: null,
          nextAttemptTrigger: 'automatic',
        },
      );
      expect(saved?.status).toBe('failed');
      expect(await count('agency-a', { ...window, status: 'failed', eventType: 'job_created' })).toBe(
        before + 1,
      );
      expect(await count('agency-a', { status: 'failed' })).toBe(
        await pagedCount(store(), 'agency-a', { status: 'failed' }),
      );
      const pending = records.filter((record) => record.status === 'pending').length;
      expect(await count('agency-a', { status: 'pending' })).toBe(pending - 1);
    });
  });
}
