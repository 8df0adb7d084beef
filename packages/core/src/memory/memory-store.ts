import type {
  CountDeliveriesFilter,
  DeliveryExpectation,
  DisableConfigInput,
  ListConfigsOptions,
  ListDeliveriesOptions,
  PurgeDeliveriesOptions,
  PurgeRecoveriesOptions,
  RecoveryListOptions,
  RecoveryPageOptions,
  RecoveryPageReplay,
  SetSigningSecretOptions,
  StoreCapabilities,
  TransactionOptions,
  UpsertConfigInput,
  WebhookStore,
} from '../adapters/store';
import { assertNoTransaction } from '../adapters/store';
import type { SigningKeyRecord, WebhookConfigRecord } from '../config/config';
import type { AttemptRecord } from '../delivery/attempt-record';
import type { CircuitRecord, CircuitState } from '../delivery/circuit-breaker';
import type { DeliveryRecord, DeliveryUpdate } from '../delivery/delivery';
import { cursorEventType, type RecoveryRecord, type RecoveryUpdate } from '../delivery/recovery';
import { replayUpdate } from '../delivery/state-machine';
import { WebhookError } from '../errors';
import { lowerBound } from '../sorted-array';
import { appendAttempt, readAttempts } from './attempt-log';
import { compareCodePoints } from './code-point-order';
import { FinishedIndex, type FinishedStatus } from './finished-index';
import { matchesListFilters } from './list-filter';
import { MemoryRecoveryTable } from './recovery-table';
import { applyUpdate, copyDelivery, type StoredDelivery, storedCopy } from './stored-delivery';

/**
 * Per-agency index: the agency's delivery ids in ascending order (ids are
 * time-ordered, so this is creation order) and its event ids, so listing and the
 * idempotency check never touch other agencies' records.
 */
interface AgencyDeliveries {
  ids: string[];
  byEvent: Map<string, string>;
}

/**
 * Creates the in-memory {@link WebhookStore}: the embedded default, for a single
 * process, tests and development. Nothing survives a restart.
 *
 * Concurrency: every operation runs to completion without an `await` between its
 * check and its write, so concurrent calls in one process behave as if serialised
 * (one `created: true` per agency or event, one winner per compare-and-set).
 * Records are copied on the way in and out: mutating an argument or a result never
 * changes stored state.
 *
 * @remarks Lists (and counts) walk the agency's own index from the cursor backwards; filters
 * (status, event type, entity, creation window) skip non-matching records on that
 * walk (writes stay cheap because a status change moves nothing). `listDuePending` looks only at pending records.
 * A purge takes the oldest finished records of each status from a per-status heap
 * (memory/finished-index.ts), never walking pending or younger ones. A delivery's
 * attempt history lives on its stored record, so a purge drops both. A purge of
 * recoveries scans the few the process holds (memory/recovery-table.ts).
 * Passing `options.transaction` throws a `WebhookError` with code
 * `transactions_unsupported`.
 *
 * @example
 * ```ts
 * const webhooks = createWebhookService({ store: createMemoryStore(), queue: createMemoryQueue() });
 * ```
 */
export function createMemoryStore(): WebhookStore {
  return new MemoryWebhookStore();
}

class MemoryWebhookStore implements WebhookStore {
  readonly capabilities: StoreCapabilities = Object.freeze({ transactions: false, purge: true });

  readonly #configs = new Map<string, WebhookConfigRecord>();
  readonly #deliveries = new Map<string, StoredDelivery>();
  readonly #agencies = new Map<string, AgencyDeliveries>();
  /**
   * Pending deliveries, in no order: the only candidates of `listDuePending`. A
   * list whose records know their slot rather than a Set of ids: adding and
   * removing (once per delivery each) then hash nothing.
   */
  readonly #pending: StoredDelivery[] = [];
  readonly #circuits = new Map<string, CircuitRecord>();
  /** Finished deliveries per status, oldest first: all a purge looks at. */
  readonly #finished = new FinishedIndex();
  readonly #recoveries = new MemoryRecoveryTable();

  async getConfig(agencyId: string): Promise<WebhookConfigRecord | null> {
    const config = this.#configs.get(agencyId);
    return config ? copyConfig(config) : null;
  }

  async upsertConfig(input: UpsertConfigInput): Promise<{ config: WebhookConfigRecord; created: boolean }> {
    const existing = this.#configs.get(input.agencyId);
    const config: WebhookConfigRecord = existing
      ? {
          ...existing,
          webhookUrl: input.webhookUrl,
          enabled: input.enabled,
          subscribedEventTypes: [...input.subscribedEventTypes],
          updatedAt: input.now,
          disabledAt: null,
          disabledReason: null,
          signatureScheme: input.signatureScheme ?? existing.signatureScheme,
          signingKeys: input.signingKeys ? copyKeys(input.signingKeys) : existing.signingKeys,
        }
      : {
          id: input.newId,
          agencyId: input.agencyId,
          webhookUrl: input.webhookUrl,
          signingSecret: input.newSigningSecret,
          enabled: input.enabled,
          subscribedEventTypes: [...input.subscribedEventTypes],
          createdAt: input.now,
          updatedAt: input.now,
          disabledAt: null,
          disabledReason: null,
          signatureScheme: input.signatureScheme ?? 'service',
          signingKeys: input.signingKeys ? copyKeys(input.signingKeys) : [],
        };
    this.#configs.set(input.agencyId, config);
    return { config: copyConfig(config), created: existing === undefined };
  }

  async setSigningSecret(
    agencyId: string,
    signingSecret: string,
    now: number,
    options?: SetSigningSecretOptions,
  ): Promise<WebhookConfigRecord | null> {
    const existing = this.#configs.get(agencyId);
    if (!existing) return null;
    const expected = options?.expectedSigningSecret;
    if (expected !== undefined && existing.signingSecret !== expected) return null;
    const config = { ...existing, signingSecret, updatedAt: now };
    this.#configs.set(agencyId, config);
    return copyConfig(config);
  }

  async setSigningKeys(
    agencyId: string,
    signingKeys: SigningKeyRecord[],
    now: number,
  ): Promise<WebhookConfigRecord | null> {
    const existing = this.#configs.get(agencyId);
    if (!existing) return null;
    const config: WebhookConfigRecord = { ...existing, signingKeys: copyKeys(signingKeys), updatedAt: now };
    this.#configs.set(agencyId, config);
    return copyConfig(config);
  }

  async disableConfig(agencyId: string, input: DisableConfigInput): Promise<WebhookConfigRecord | null> {
    const existing = this.#configs.get(agencyId);
    if (!existing?.enabled || existing.updatedAt !== input.expectedUpdatedAt) return null;
    const config: WebhookConfigRecord = {
      ...existing,
      enabled: false,
      disabledAt: input.now,
      disabledReason: input.reason,
      updatedAt: input.now,
    };
    this.#configs.set(agencyId, config);
    return copyConfig(config);
  }

  /** Sorts the agency ids on every page: fine for the memory store's size, and nothing to keep in step. */
  async listConfigs({ after, limit }: ListConfigsOptions): Promise<WebhookConfigRecord[]> {
    const ids = [...this.#configs.keys()].filter((id) => after === null || compareCodePoints(id, after) > 0);
    return ids
      .sort(compareCodePoints)
      .slice(0, Math.max(0, limit))
      .map((id) => copyConfig(this.#configs.get(id) as WebhookConfigRecord));
  }

  async deleteConfig(agencyId: string): Promise<boolean> {
    return this.#configs.delete(agencyId);
  }

  async getCircuit(agencyId: string): Promise<CircuitRecord | null> {
    const circuit = this.#circuits.get(agencyId);
    return circuit ? { ...circuit } : null;
  }

  async saveCircuit(
    agencyId: string,
    expectedVersion: number | null,
    state: CircuitState,
  ): Promise<CircuitRecord | null> {
    const current = this.#circuits.get(agencyId);
    if ((current?.version ?? null) !== expectedVersion) return null;
    const saved: CircuitRecord = { ...state, agencyId, version: (expectedVersion ?? 0) + 1 };
    this.#circuits.set(agencyId, saved);
    return { ...saved };
  }

  async createRecovery(record: RecoveryRecord): Promise<{ recovery: RecoveryRecord; created: boolean }> {
    return this.#recoveries.create(record);
  }

  async getRecovery(recoveryId: string): Promise<RecoveryRecord | null> {
    return this.#recoveries.get(recoveryId);
  }

  async updateRecovery(
    recoveryId: string,
    expectedVersion: number,
    update: RecoveryUpdate,
  ): Promise<RecoveryRecord | null> {
    return this.#recoveries.update(recoveryId, expectedVersion, update);
  }

  async listRunningRecoveries(limit: number): Promise<RecoveryRecord[]> {
    return this.#recoveries.listRunning(limit);
  }

  async listRecoveries(agencyId: string, options: RecoveryListOptions): Promise<RecoveryRecord[]> {
    return this.#recoveries.list(agencyId, options);
  }

  async purgeRecoveries(options: PurgeRecoveriesOptions): Promise<number> {
    return this.#recoveries.purgeFinished(options);
  }

  async insertDelivery(
    record: DeliveryRecord,
    options?: TransactionOptions,
  ): Promise<{ delivery: DeliveryRecord; created: boolean }> {
    assertNoTransaction(options, 'memory store');
    const agency = this.#agencies.get(record.agencyId);
    const existingId = agency?.byEvent.get(record.eventId);
    const existing = existingId === undefined ? undefined : this.#deliveries.get(existingId);
    if (existing) return { delivery: copyDelivery(existing), created: false };
    if (this.#deliveries.has(record.id)) {
      throw new WebhookError(
        'store_error',
        `A delivery with id "${record.id}" exists already; ids must be unique.`,
      );
    }
    const stored = storedCopy(record);
    this.#deliveries.set(stored.id, stored);
    this.#trackPending(stored);
    this.#finished.track(stored);
    const index = agency ?? this.#newAgencyIndex(stored.agencyId);
    index.byEvent.set(stored.eventId, stored.id);
    insertSorted(index.ids, stored.id);
    // The caller's record is what was stored, and the stored copy is detached from
    // it: handing it back costs nothing and exposes nothing (the Redis store does the same).
    return { delivery: record, created: true };
  }

  async getDelivery(deliveryId: string): Promise<DeliveryRecord | null> {
    const record = this.#deliveries.get(deliveryId);
    return record ? copyDelivery(record) : null;
  }

  async listDeliveries(agencyId: string, options: ListDeliveriesOptions): Promise<DeliveryRecord[]> {
    return this.#listStored(agencyId, options).map(copyDelivery);
  }

  /** The same walk and matching as `listDeliveries`, without copying a record. */
  async countDeliveries(agencyId: string, filter: CountDeliveriesFilter): Promise<number> {
    let matched = 0;
    for (const id of this.#agencies.get(agencyId)?.ids ?? []) {
      const record = this.#deliveries.get(id);
      if (record && matchesListFilters(record, filter)) matched++;
    }
    return matched;
  }

  async updateDelivery(
    deliveryId: string,
    expected: DeliveryExpectation,
    update: DeliveryUpdate,
  ): Promise<DeliveryRecord | null> {
    const current = this.#deliveries.get(deliveryId);
    if (!current || current.attempt !== expected.attempt || current.status !== expected.status) return null;
    // In place: no caller ever holds a stored record, so nothing can see it change.
    applyUpdate(current, update);
    // The same synchronous step as the compare-and-set: appended exactly when it won.
    if (update.recordedAttempt) appendAttempt(current, update.recordedAttempt);
    this.#trackPending(current);
    this.#finished.track(current);
    return copyDelivery(current);
  }

  async replayRecoveryPage(
    recovery: RecoveryRecord,
    page: RecoveryPageOptions,
  ): Promise<RecoveryPageReplay | null> {
    const current = this.#recoveries.get(recovery.id);
    if (!current || current.version !== recovery.version) return null;
    const failed = this.#listStored(current.agencyId, {
      status: 'failed',
      eventType: cursorEventType(current),
      createdSince: current.since,
      createdBefore: current.until,
      beforeId: current.cursorId ?? undefined,
      limit: page.limit,
    });
    const last = failed.at(-1);
    if (!last) return { recovery: current, replayedIds: [] };
    const opened = this.#recoveries.update(current.id, current.version, {
      pageEndId: last.id,
      leaseUntil: page.leaseUntil,
    }) as RecoveryRecord;
    for (const record of failed) {
      applyUpdate(record, replayUpdate(record, page.now, 'recovery'));
      this.#trackPending(record);
      this.#finished.track(record);
    }
    return { recovery: opened, replayedIds: failed.map((record) => record.id) };
  }

  async listAttempts(deliveryId: string): Promise<AttemptRecord[]> {
    return readAttempts(this.#deliveries.get(deliveryId));
  }

  async listDuePending(dueBefore: number, limit: number): Promise<DeliveryRecord[]> {
    const due: DeliveryRecord[] = [];
    for (const record of this.#pending) {
      if (record.nextRetryAt !== null && record.nextRetryAt <= dueBefore) due.push(record);
    }
    due.sort(byDueTime);
    return due.slice(0, Math.max(0, limit)).map(copyDelivery);
  }

  async purgeDeliveries(options: PurgeDeliveriesOptions): Promise<number> {
    const removedByAgency = new Map<string, Set<string>>();
    const statuses: FinishedStatus[] = options.status ? [options.status] : ['success', 'failed'];
    const taken: StoredDelivery[] = [];
    for (const status of statuses) {
      taken.push(...this.#finished.take(status, options.olderThan, options.limit - taken.length));
    }
    for (const record of taken) {
      this.#deliveries.delete(record.id);
      this.#dropEvent(record);
      const ids = removedByAgency.get(record.agencyId) ?? new Set<string>();
      removedByAgency.set(record.agencyId, ids.add(record.id));
    }
    // One filter pass per agency rather than a splice per record: a purge of many
    // records would otherwise be quadratic in the agency's history.
    for (const [agencyId, ids] of removedByAgency) this.#dropIds(agencyId, ids);
    return taken.length;
  }

  /** The stored records a list returns, not copied: newest first from the cursor back, as many as match up to the limit. */
  #listStored(agencyId: string, options: ListDeliveriesOptions): StoredDelivery[] {
    const ids = this.#agencies.get(agencyId)?.ids;
    if (!ids) return [];
    const page: StoredDelivery[] = [];
    // Everything before `end` sorts strictly before the cursor.
    const end = options.beforeId === undefined ? ids.length : lowerBound(ids, options.beforeId);
    for (let index = end - 1; index >= 0 && page.length < options.limit; index--) {
      const record = this.#deliveries.get(ids[index] as string);
      if (record && matchesListFilters(record, options)) page.push(record);
    }
    return page;
  }

  #newAgencyIndex(agencyId: string): AgencyDeliveries {
    const agency: AgencyDeliveries = { ids: [], byEvent: new Map() };
    this.#agencies.set(agencyId, agency);
    return agency;
  }

  #trackPending(record: StoredDelivery): void {
    const pending = this.#pending;
    const slot = record.pendingSlot;
    if (record.status === 'pending') {
      if (slot < 0) record.pendingSlot = pending.push(record) - 1;
      return;
    }
    if (slot < 0) return;
    // Swap-remove: the list has no order to keep.
    const last = pending.pop() as StoredDelivery;
    if (last !== record) {
      pending[slot] = last;
      last.pendingSlot = slot;
    }
    record.pendingSlot = -1;
  }

  #dropEvent(record: DeliveryRecord): void {
    const byEvent = this.#agencies.get(record.agencyId)?.byEvent;
    if (byEvent?.get(record.eventId) === record.id) byEvent.delete(record.eventId);
  }

  #dropIds(agencyId: string, removed: Set<string>): void {
    const agency = this.#agencies.get(agencyId);
    if (!agency) return;
    agency.ids = agency.ids.filter((id) => !removed.has(id));
    if (agency.ids.length === 0) this.#agencies.delete(agencyId);
  }
}

/** Oldest due first; ties by id so the order is stable. */
function byDueTime(a: DeliveryRecord, b: DeliveryRecord): number {
  const byTime = (a.nextRetryAt ?? 0) - (b.nextRetryAt ?? 0);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function copyConfig(config: WebhookConfigRecord): WebhookConfigRecord {
  return {
    id: config.id,
    agencyId: config.agencyId,
    webhookUrl: config.webhookUrl,
    signingSecret: config.signingSecret,
    enabled: config.enabled,
    subscribedEventTypes: config.subscribedEventTypes.slice(),
    createdAt: config.createdAt,
    updatedAt: config.updatedAt,
    disabledAt: config.disabledAt,
    disabledReason: config.disabledReason,
    signatureScheme: config.signatureScheme,
    signingKeys: copyKeys(config.signingKeys),
  };
}

function copyKeys(keys: readonly SigningKeyRecord[]): SigningKeyRecord[] {
  return keys.map((key) => ({
    kid: key.kid,
    privateKey: key.privateKey,
    publicKey: key.publicKey,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
  }));
}

/** Keeps `ids` ascending; new ids are usually the greatest, so that case is a push. */
function insertSorted(ids: string[], id: string): void {
  const last = ids[ids.length - 1];
  if (last === undefined || last < id) ids.push(id);
  else ids.splice(lowerBound(ids, id), 0, id);
}
