import type { PurgeRecoveriesOptions, RecoveryListOptions } from '../adapters/store';
import { applyRecoveryUpdate, type RecoveryRecord, type RecoveryUpdate } from '../delivery/recovery';
import { compareCodePoints } from './code-point-order';

/**
 * The memory store's bulk recoveries: records by id, each agency's ids, and each
 * agency's running one.
 * Every method runs without an `await`, so concurrent calls behave as if serialised.
 * Records are copied on the way in and out.
 */
export class MemoryRecoveryTable {
  readonly #recoveries = new Map<string, RecoveryRecord>();
  /** Agency id → id of its running recovery. */
  readonly #running = new Map<string, string>();
  /** Agency id → ids of all its recoveries, in the order created. */
  readonly #byAgency = new Map<string, string[]>();

  create(record: RecoveryRecord): { recovery: RecoveryRecord; created: boolean } {
    const runningId = this.#running.get(record.agencyId);
    const running = runningId === undefined ? undefined : this.#recoveries.get(runningId);
    if (running) return { recovery: copyRecovery(running), created: false };
    const stored = copyRecovery(record);
    this.#recoveries.set(stored.id, stored);
    const ids = this.#byAgency.get(stored.agencyId);
    if (ids) ids.push(stored.id);
    else this.#byAgency.set(stored.agencyId, [stored.id]);
    if (stored.status === 'running') this.#running.set(stored.agencyId, stored.id);
    return { recovery: copyRecovery(stored), created: true };
  }

  get(recoveryId: string): RecoveryRecord | null {
    const record = this.#recoveries.get(recoveryId);
    return record ? copyRecovery(record) : null;
  }

  update(recoveryId: string, expectedVersion: number, update: RecoveryUpdate): RecoveryRecord | null {
    const current = this.#recoveries.get(recoveryId);
    if (!current || current.version !== expectedVersion) return null;
    const next = applyRecoveryUpdate(current, update);
    this.#recoveries.set(recoveryId, next);
    if (current.status === 'running' && next.status !== 'running') this.#running.delete(next.agencyId);
    return copyRecovery(next);
  }

  /** An agency holds a few recoveries (one runs at a time), so sorting them per call is cheap. */
  list(agencyId: string, { limit, beforeId }: RecoveryListOptions): RecoveryRecord[] {
    const ids = (this.#byAgency.get(agencyId) ?? [])
      .filter((id) => beforeId === undefined || compareCodePoints(id, beforeId) < 0)
      .sort((a, b) => compareCodePoints(b, a));
    return ids.slice(0, limit).map((id) => copyRecovery(this.#recoveries.get(id)!));
  }

  listRunning(limit: number): RecoveryRecord[] {
    const running: RecoveryRecord[] = [];
    for (const id of this.#running.values()) {
      const record = this.#recoveries.get(id);
      if (record) running.push(record);
    }
    running.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return running.slice(0, limit).map(copyRecovery);
  }

  /**
   * Deletes up to `limit` finished recoveries whose `completedAt` is before `olderThan`,
   * the oldest finished first, from the records and their agency's list. A scan of every
   * recovery: one runs at a time per agency and starts are rate limited (`recoveryLimit`:
   * one every 12 s by default), so a process holds few, and a heap kept up to date on
   * every update would cost more code than the scan costs time.
   */
  purgeFinished({ olderThan, limit }: PurgeRecoveriesOptions): number {
    const expired: RecoveryRecord[] = [];
    for (const record of this.#recoveries.values()) {
      if (record.status !== 'running' && record.completedAt !== null && record.completedAt < olderThan) {
        expired.push(record);
      }
    }
    expired.sort((a, b) => (a.completedAt as number) - (b.completedAt as number));
    const taken = expired.slice(0, Math.max(0, limit));
    const removedByAgency = new Map<string, Set<string>>();
    for (const record of taken) {
      this.#recoveries.delete(record.id);
      const ids = removedByAgency.get(record.agencyId) ?? new Set<string>();
      removedByAgency.set(record.agencyId, ids.add(record.id));
    }
    for (const [agencyId, removed] of removedByAgency) {
      const kept = (this.#byAgency.get(agencyId) ?? []).filter((id) => !removed.has(id));
      if (kept.length > 0) this.#byAgency.set(agencyId, kept);
      else this.#byAgency.delete(agencyId);
    }
    return taken.length;
  }
}

function copyRecovery(record: RecoveryRecord): RecoveryRecord {
  return { ...record, eventTypes: record.eventTypes === null ? null : record.eventTypes.slice() };
}
