import type { DeliveryRecord } from '@svc/webhooks-core';
import { setNewest } from '@svc/webhooks-core/adapter-kit';

/** How long a claim-time snapshot may answer a getDelivery. */
const SNAPSHOT_TTL_MS = 2_000;

/** Upper bound of each map, so a caller that never settles cannot grow them without end. */
const MAX_ENTRIES = 20_000;

/**
 * What this process knows about the claims it holds, shared by the store and the
 * queue of one schema. It lets the worker's round of calls on a claimed delivery
 * (getDelivery → send → updateDelivery → ack or reschedule) cost two statements
 * instead of four, without changing what any call returns:
 *
 * - The claim statement returns the whole row it locked, and the first
 *   `getDelivery` of that id within two seconds is answered from it. Nothing
 *   else can have changed a row this process holds a live lease on, and this
 *   process's own writes to the row drop the snapshot.
 * - When `updateDelivery` (compare-and-set) records an attempt on a delivery this
 *   process holds, the same statement also settles the claim, exactly as the
 *   worker's next call would (ack when the record is finished, reschedule at
 *   `nextRetryAt` while pending), but only if the row still carries that claim
 *   id. The `ack` or `reschedule` that follows then answers from memory.
 */
export class ClaimLedger {
  readonly #held = new Map<string, string>();
  readonly #snapshots = new Map<string, { record: DeliveryRecord; expiresAt: number }>();
  readonly #settled = new Map<string, number | null>();

  /** Records a fresh claim and the row it locked. */
  claimed(claimId: string, record: DeliveryRecord): void {
    setNewest(this.#held, record.id, claimId, MAX_ENTRIES);
    setNewest(this.#snapshots, record.id, { record, expiresAt: Date.now() + SNAPSHOT_TTL_MS }, MAX_ENTRIES);
  }

  /** The claim id this process holds on the delivery, if any. */
  heldClaim(deliveryId: string): string | undefined {
    return this.#held.get(deliveryId);
  }

  /** The claim-time record, once, while fresh. */
  takeSnapshot(deliveryId: string): DeliveryRecord | undefined {
    const snapshot = this.#snapshots.get(deliveryId);
    if (!snapshot) return undefined;
    this.#snapshots.delete(deliveryId);
    return snapshot.expiresAt >= Date.now() ? snapshot.record : undefined;
  }

  /** This process wrote the delivery: its snapshot is out of date. */
  wrote(deliveryId: string): void {
    this.#snapshots.delete(deliveryId);
  }

  /** The compare-and-set settled the claim: acked (`runAt` null) or due again at `runAt`. */
  settled(deliveryId: string, claimId: string, runAt: number | null): void {
    if (this.#held.get(deliveryId) === claimId) this.#held.delete(deliveryId);
    setNewest(this.#settled, claimId, runAt, MAX_ENTRIES);
  }

  /**
   * Whether a claim was already settled the way `runAt` says (null: acked).
   * Consumes the entry either way, so a second ack falls through to the
   * database and answers false, as the contract requires.
   */
  takeSettled(claimId: string, runAt: number | null): boolean {
    if (!this.#settled.has(claimId)) return false;
    const settledAt = this.#settled.get(claimId);
    this.#settled.delete(claimId);
    return settledAt === runAt;
  }

  /** The claim ended (ack, reschedule, lost lease, enqueue): forget it. */
  released(deliveryId: string, claimId?: string): void {
    if (claimId === undefined || this.#held.get(deliveryId) === claimId) this.#held.delete(deliveryId);
    this.#snapshots.delete(deliveryId);
  }
}
