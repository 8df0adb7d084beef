/**
 * Remembers deliveries the store has just inserted as already due, so the
 * queue's enqueue that follows (emit always does insert, then enqueue, with the
 * same options) can skip its UPDATE: an emit is one round trip.
 *
 * Skipping is also what keeps the fresh row's first claim intact: a worker woken
 * by the insert's NOTIFY may claim the row before the emitting process calls
 * enqueue, and an UPDATE would then drop that worker's live claim and let a
 * second worker send the same attempt.
 *
 * Bounded: once full the oldest entry is forgotten, and its enqueue simply runs
 * the UPDATE (correct, one round trip slower).
 */
export class FreshEntries {
  readonly #entries = new Map<string, { runAt: number; transaction: unknown }>();

  constructor(private readonly capacity = 10_000) {}

  /** Records that `deliveryId` was inserted due at `runAt` (on `transaction`, if any). */
  remember(deliveryId: string, runAt: number, transaction: unknown): void {
    this.#entries.delete(deliveryId);
    this.#entries.set(deliveryId, { runAt, transaction });
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /**
   * True (and forgets the entry) when the row is already due at exactly `runAt`
   * through the same transaction (or both without one): the enqueue is a no-op.
   */
  take(deliveryId: string, runAt: number, transaction: unknown): boolean {
    const entry = this.#entries.get(deliveryId);
    if (!entry) return false;
    this.#entries.delete(deliveryId);
    return entry.runAt === runAt && entry.transaction === transaction;
  }
}
