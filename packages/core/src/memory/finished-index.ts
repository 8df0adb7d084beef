import type { DeliveryStatus } from '../delivery/delivery';
import { IndexedHeap } from './indexed-heap';
import type { StoredDelivery } from './stored-delivery';

/** A finished status: what a purge deletes, each on its own clock. */
export type FinishedStatus = Exclude<DeliveryStatus, 'pending'>;

/**
 * The memory store's finished deliveries, one heap per status keyed by
 * `createdAt`, so a purge takes the oldest of one status and stops at the first
 * one too young. Failed deliveries that a longer retention keeps are never
 * walked by a purge of successful ones, and pending ones by neither.
 */
export class FinishedIndex {
  readonly #heaps: Record<FinishedStatus, IndexedHeap<StoredDelivery>> = {
    success: new IndexedHeap(),
    failed: new IndexedHeap(),
  };

  /** Files the record under its current status (after an insert or an update); pending ones under none. */
  track(record: StoredDelivery): void {
    // Removing is a no-op for a heap that does not hold it; a record is in one heap at most.
    this.#heaps.success.remove(record);
    this.#heaps.failed.remove(record);
    if (record.status !== 'pending') this.#heaps[record.status].push(record, record.createdAt);
  }

  /**
   * Takes out up to `limit` records of `status` created before `olderThan`,
   * oldest first; the caller deletes them.
   */
  take(status: FinishedStatus, olderThan: number, limit: number): StoredDelivery[] {
    const heap = this.#heaps[status];
    const taken: StoredDelivery[] = [];
    while (taken.length < limit && heap.peekKey() < olderThan) {
      const oldest = heap.peek() as StoredDelivery;
      heap.remove(oldest);
      taken.push(oldest);
    }
    return taken;
  }
}
