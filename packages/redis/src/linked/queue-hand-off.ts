import { setNewest } from '@svc/webhooks-core/adapter-kit';

/** What a linked store script already did to a delivery's queue entry. */
export type HandedOffAction = { kind: 'enqueued'; agencyId: string; runAt: number } | { kind: 'removed' };

/**
 * Notes passed from a linked store to its queue in the same process (see
 * linked/redis-webhooks.ts). When the store's script has already enqueued or removed
 * a delivery's entry atomically with the record change, the service's
 * following `enqueue`, `ack` or `reschedule` of that same entry would only
 * repeat it; the queue answers it from this note instead of a round trip.
 *
 * Bounded: a note nobody takes (a host calling the store directly) is dropped
 * once `capacity` newer ones exist, and then the queue simply does the call.
 */
export class QueueHandOff {
  readonly #notes = new Map<string, HandedOffAction>();

  constructor(private readonly capacity = 10_000) {}

  note(deliveryId: string, action: HandedOffAction): void {
    setNewest(this.#notes, deliveryId, action, this.capacity);
  }

  /** True (and the note is used up) when the store already made the entry due at `runAt` for `agencyId`. */
  takeEnqueued(deliveryId: string, agencyId: string, runAt: number): boolean {
    const action = this.#notes.get(deliveryId);
    if (action?.kind !== 'enqueued' || action.agencyId !== agencyId || action.runAt !== runAt) return false;
    this.#notes.delete(deliveryId);
    return true;
  }

  /** True (and the note is used up) when the store already removed the entry. */
  takeRemoved(deliveryId: string): boolean {
    if (this.#notes.get(deliveryId)?.kind !== 'removed') return false;
    this.#notes.delete(deliveryId);
    return true;
  }
}
