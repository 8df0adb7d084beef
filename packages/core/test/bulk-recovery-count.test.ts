import { describe, expect, it, vi } from 'vitest';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  type DeliveryRecord,
  type DeliveryStatus,
  type RecoverDeliveriesBody,
  type WebhookStore,
} from '../src/index';
import { makeDeliveryRecord } from '../src/testing';

// A recovery's `matched` is the store's count when it has one and a walk of the
// list's pages when it has not: both must answer the same for every window.

const BASE_TIME = 1_700_000_000_000;
const SECOND = 1_000;
const NOW = BASE_TIME + 3_600 * SECOND;
const STATUSES: readonly DeliveryStatus[] = ['failed', 'success', 'failed', 'pending', 'failed'];
const TYPES = ['job_created', 'job_cancelled', 'quote_approved'] as const;

/** 2,500 deliveries of agency-a (more than one 1,000-row page of the walk), one a second, and a few of agency-b. */
function deliveries(): DeliveryRecord[] {
  const record = (agencyId: string, index: number) => {
    const status = STATUSES[index % STATUSES.length] as DeliveryStatus;
    return makeDeliveryRecord({
      agencyId,
      status,
      eventType: TYPES[index % TYPES.length] as string,
      createdAt: BASE_TIME + index * SECOND,
      nextRetryAt: status === 'pending' ? BASE_TIME : null,
    });
  };
  return [
    ...Array.from({ length: 2_500 }, (_, index) => record('agency-a', index)),
    ...Array.from({ length: 40 }, (_, index) => record('agency-b', index)),
  ];
}

/** The same store with `countDeliveries` hidden, as a store written before it looks to core. */
function withoutCount(store: WebhookStore): WebhookStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'countDeliveries') return undefined;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Off: the test counts every window with one service, far more dry runs than an agency's default allowance. */
function serviceOn(store: WebhookStore) {
  return createWebhookService({ store, queue: createMemoryQueue(), clock: () => NOW, recoveryLimit: false });
}

const at = (index: number) => BASE_TIME + index * SECOND;

const WINDOWS: readonly RecoverDeliveriesBody[] = [
  { since: BASE_TIME },
  { since: at(10), until: at(2_010) },
  { since: at(10), until: at(11) },
  { since: at(1_000), until: at(1_000) },
  { since: at(100), eventTypes: ['job_created'] },
  { since: at(100), until: at(1_900), eventTypes: ['quote_approved', 'job_created', 'quote_approved'] },
  // A known type with no deliveries in the window.
  { since: at(0), eventTypes: ['invoice_approved'] },
  { since: NOW + SECOND },
];

/** What a recovery of `body` must match, computed from the records themselves. */
function expectedMatched(records: readonly DeliveryRecord[], body: RecoverDeliveriesBody): number {
  const until = body.until ?? NOW;
  const types = body.eventTypes && new Set(body.eventTypes);
  return records.filter(
    (record) =>
      record.agencyId === 'agency-a' &&
      record.status === 'failed' &&
      record.createdAt >= body.since &&
      record.createdAt < until &&
      (!types || types.has(record.eventType)),
  ).length;
}

describe('bulk recovery’s count', () => {
  it('matches the same with the store’s count as with the paging walk, for every window', async () => {
    const store = createMemoryStore();
    const records = deliveries();
    for (const record of records) await store.insertDelivery(record);
    const counting = vi.spyOn(store as Required<WebhookStore>, 'countDeliveries');
    const counted = serviceOn(store);
    const paged = serviceOn(withoutCount(store));
    for (const window of WINDOWS) {
      const label = JSON.stringify(window);
      const body = { ...window, dryRun: true };
      const expected = expectedMatched(records, window);
      expect(await counted.recoverDeliveries('agency-a', body), label).toEqual({ matched: expected });
      expect(await paged.recoverDeliveries('agency-a', body), `${label}, paging`).toEqual({
        matched: expected,
      });
    }
    expect(counting).toHaveBeenCalled();
  });

  it('the count never lists a record when the store can count, and the started recovery stores it', async () => {
    const store = createMemoryStore();
    for (const record of deliveries()) await store.insertDelivery(record);
    const listing = vi.spyOn(store, 'listDeliveries');
    const body = { since: at(10), until: at(2_010), eventTypes: ['job_created', 'job_cancelled'] };
    const started = await serviceOn(store).recoverDeliveries('agency-a', body);
    expect(listing).not.toHaveBeenCalled();
    const walkedStore = createMemoryStore();
    for (const record of deliveries()) await walkedStore.insertDelivery(record);
    const walked = await serviceOn(withoutCount(walkedStore)).recoverDeliveries('agency-a', body);
    expect(started.matched).toBe(walked.matched);
    expect(started.matched).toBeGreaterThan(500);
    expect((await store.getRecovery(started.recoveryId))?.matched).toBe(started.matched);
  });
});
