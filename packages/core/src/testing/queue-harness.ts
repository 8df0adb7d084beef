import { expect } from 'vitest';
import type { DeliveryQueue, QueueEntry } from '../adapters/queue';
import type { WebhookStore } from '../adapters/store';
import { BASE_TIME, makeDeliveryId, makeDeliveryRecord } from './delivery-record-builder';

/** Lease length the queue cases claim with: whole seconds, so coarse clocks hold it exactly. */
export const LEASE_MS = 30_000;

/** What the queue cases work with during one test. */
export interface QueueHarness {
  queue: DeliveryQueue;
  /** Another queue object on the same backend, as a second worker process would hold; absent when the factory gave none. */
  sibling?: (() => DeliveryQueue) | undefined;
  /** Enqueues, first inserting a matching pending delivery when the factory returned a store. */
  enqueue(entry: QueueEntry): Promise<void>;
  enqueueAll(entries: readonly QueueEntry[]): Promise<void>;
  /** The latest instant that is surely before `time` at the backend's granularity. */
  justBefore(time: number): number;
  /** The earliest instant that is surely at or after `time` at the backend's granularity. */
  at(time: number): number;
  /** Asserts that two times are equal at the backend's granularity. */
  expectTime(actual: number, expected: number, label: string): void;
}

/** A queue entry of agency-a due at BASE_TIME, with a fresh delivery id. */
export function makeEntry(overrides: Partial<QueueEntry> = {}): QueueEntry {
  return { deliveryId: makeDeliveryId(), agencyId: 'agency-a', runAt: BASE_TIME, ...overrides };
}

export function createQueueHarness(
  queue: DeliveryQueue,
  store: WebhookStore | undefined,
  granularityMs: number,
  sibling?: () => DeliveryQueue,
): QueueHarness {
  const seeded = new Set<string>();
  const seed = async (entry: QueueEntry): Promise<void> => {
    if (!store || seeded.has(entry.deliveryId)) return;
    seeded.add(entry.deliveryId);
    await store.insertDelivery(
      makeDeliveryRecord({ id: entry.deliveryId, agencyId: entry.agencyId, nextRetryAt: entry.runAt }),
    );
  };
  const enqueue = async (entry: QueueEntry): Promise<void> => {
    await seed(entry);
    await queue.enqueue(entry);
  };
  return {
    queue,
    sibling,
    enqueue,
    enqueueAll: async (entries) => {
      await Promise.all(entries.map(enqueue));
    },
    justBefore: (time) => time - granularityMs,
    at: (time) => time + granularityMs - 1,
    expectTime: (actual, expected, label) => {
      expect(Math.abs(actual - expected), `${label}: |actual - expected| in ms`).toBeLessThan(granularityMs);
    },
  };
}
