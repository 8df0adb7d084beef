import type { WebhookConfigRecord } from './config';
import type { DeliveryRecord, DeliveryUpdate } from './delivery';
import { WebhookError } from './errors';
import type {
  DeliveryExpectation,
  ListDeliveriesOptions,
  StoreCapabilities,
  TransactionOptions,
  UpsertConfigInput,
  WebhookStore,
} from './store';
import { assertNoTransaction } from './transaction-unsupported';

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
 * @remarks Lists walk the agency's own index from the cursor backwards; a status
 * filter skips non-matching records on that walk (writes stay cheap because a
 * status change moves nothing). `listDuePending` looks only at pending records.
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
  readonly #deliveries = new Map<string, DeliveryRecord>();
  readonly #agencies = new Map<string, AgencyDeliveries>();
  /** Ids of pending deliveries: the only candidates of `listDuePending`. */
  readonly #pending = new Set<string>();

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
        };
    this.#configs.set(input.agencyId, config);
    return { config: copyConfig(config), created: existing === undefined };
  }

  async setSigningSecret(
    agencyId: string,
    signingSecret: string,
    now: number,
  ): Promise<WebhookConfigRecord | null> {
    const existing = this.#configs.get(agencyId);
    if (!existing) return null;
    const config = { ...existing, signingSecret, updatedAt: now };
    this.#configs.set(agencyId, config);
    return copyConfig(config);
  }

  async deleteConfig(agencyId: string): Promise<boolean> {
    return this.#configs.delete(agencyId);
  }

  async insertDelivery(
    record: DeliveryRecord,
    options?: TransactionOptions,
  ): Promise<{ delivery: DeliveryRecord; created: boolean }> {
    assertNoTransaction(options, 'memory store');
    const existingId = this.#agencies.get(record.agencyId)?.byEvent.get(record.eventId);
    const existing = existingId === undefined ? undefined : this.#deliveries.get(existingId);
    if (existing) return { delivery: copyDelivery(existing), created: false };
    if (this.#deliveries.has(record.id)) {
      throw new WebhookError(
        'store_error',
        `A delivery with id "${record.id}" exists already; ids must be unique.`,
      );
    }
    const stored = copyDelivery(record);
    this.#deliveries.set(stored.id, stored);
    this.#trackPending(stored);
    const agency = this.#agencyIndex(stored.agencyId);
    agency.byEvent.set(stored.eventId, stored.id);
    insertSorted(agency.ids, stored.id);
    return { delivery: copyDelivery(stored), created: true };
  }

  async getDelivery(deliveryId: string): Promise<DeliveryRecord | null> {
    const record = this.#deliveries.get(deliveryId);
    return record ? copyDelivery(record) : null;
  }

  async listDeliveries(agencyId: string, options: ListDeliveriesOptions): Promise<DeliveryRecord[]> {
    const ids = this.#agencies.get(agencyId)?.ids;
    if (!ids) return [];
    const page: DeliveryRecord[] = [];
    // Everything before `end` sorts strictly before the cursor.
    const end = options.beforeId === undefined ? ids.length : lowerBound(ids, options.beforeId);
    for (let index = end - 1; index >= 0 && page.length < options.limit; index--) {
      const record = this.#deliveries.get(ids[index] as string);
      if (!record || (options.status !== undefined && record.status !== options.status)) continue;
      page.push(copyDelivery(record));
    }
    return page;
  }

  async updateDelivery(
    deliveryId: string,
    expected: DeliveryExpectation,
    update: DeliveryUpdate,
  ): Promise<DeliveryRecord | null> {
    const current = this.#deliveries.get(deliveryId);
    if (!current || current.attempt !== expected.attempt || current.status !== expected.status) return null;
    const next = applyUpdate(current, update);
    this.#deliveries.set(deliveryId, next);
    this.#trackPending(next);
    return copyDelivery(next);
  }

  async listDuePending(dueBefore: number, limit: number): Promise<DeliveryRecord[]> {
    const due: DeliveryRecord[] = [];
    for (const id of this.#pending) {
      const record = this.#deliveries.get(id);
      if (record && record.nextRetryAt !== null && record.nextRetryAt <= dueBefore) due.push(record);
    }
    due.sort(byDueTime);
    return due.slice(0, Math.max(0, limit)).map(copyDelivery);
  }

  async purgeDeliveries(options: { olderThan: number; limit: number }): Promise<number> {
    const removedByAgency = new Map<string, Set<string>>();
    let removed = 0;
    for (const record of this.#deliveries.values()) {
      if (removed >= options.limit) break;
      if (record.status === 'pending' || record.createdAt >= options.olderThan) continue;
      this.#deliveries.delete(record.id);
      this.#dropEvent(record);
      const ids = removedByAgency.get(record.agencyId) ?? new Set<string>();
      removedByAgency.set(record.agencyId, ids.add(record.id));
      removed++;
    }
    // One filter pass per agency rather than a splice per record: a purge of many
    // records would otherwise be quadratic in the agency's history.
    for (const [agencyId, ids] of removedByAgency) this.#dropIds(agencyId, ids);
    return removed;
  }

  #agencyIndex(agencyId: string): AgencyDeliveries {
    let agency = this.#agencies.get(agencyId);
    if (!agency) {
      agency = { ids: [], byEvent: new Map() };
      this.#agencies.set(agencyId, agency);
    }
    return agency;
  }

  #trackPending(record: DeliveryRecord): void {
    if (record.status === 'pending') this.#pending.add(record.id);
    else this.#pending.delete(record.id);
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

/** Writes exactly the fields an update owns; identity and event fields never change. */
function applyUpdate(current: DeliveryRecord, update: DeliveryUpdate): DeliveryRecord {
  // Field by field rather than `{ ...current }`: object spread is many times
  // slower on Node 20, and this runs once per attempt.
  return {
    id: current.id,
    agencyId: current.agencyId,
    eventId: current.eventId,
    eventType: current.eventType,
    entityType: current.entityType,
    entityId: current.entityId,
    parentEntityId: current.parentEntityId,
    createdById: current.createdById,
    createdByRole: current.createdByRole,
    payload: current.payload,
    createdOn: current.createdOn,
    createdAt: current.createdAt,
    status: update.status,
    attempt: update.attempt,
    maxAttempts: update.maxAttempts,
    nextRetryAt: update.nextRetryAt,
    lastAttemptAt: update.lastAttemptAt,
    deliveredAt: update.deliveredAt,
    lastResponseCode: update.lastResponseCode,
    lastErrorMessage: update.lastErrorMessage,
    lastResponseExcerpt: update.lastResponseExcerpt,
  };
}

/** A detached copy holding exactly the record's fields (extra properties are not stored). */
function copyDelivery(record: DeliveryRecord): DeliveryRecord {
  return {
    id: record.id,
    agencyId: record.agencyId,
    eventId: record.eventId,
    eventType: record.eventType,
    entityType: record.entityType,
    entityId: record.entityId,
    parentEntityId: record.parentEntityId,
    createdById: record.createdById,
    createdByRole: record.createdByRole,
    payload: clonePayload(record.payload),
    createdOn: record.createdOn,
    createdAt: record.createdAt,
    status: record.status,
    attempt: record.attempt,
    maxAttempts: record.maxAttempts,
    nextRetryAt: record.nextRetryAt,
    lastAttemptAt: record.lastAttemptAt,
    deliveredAt: record.deliveredAt,
    lastResponseCode: record.lastResponseCode,
    lastErrorMessage: record.lastErrorMessage,
    lastResponseExcerpt: record.lastResponseExcerpt,
  };
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
  };
}

/**
 * Deep copy of a payload. Payloads are JSON data (they are sent as JSON), which
 * a plain recursive copy handles several times faster than structuredClone; any
 * other kind of object (a Date a custom schema produced, say) falls back to it.
 */
function clonePayload<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(clonePayload) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = clonePayload((value as Record<string, unknown>)[key]);
  return copy as T;
}

/** Index of the first id that is not less than `id` (ids compare as strings). */
function lowerBound(ids: readonly string[], id: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ids[middle] as string) < id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Keeps `ids` ascending; new ids are usually the greatest, so that case is a push. */
function insertSorted(ids: string[], id: string): void {
  const last = ids[ids.length - 1];
  if (last === undefined || last < id) ids.push(id);
  else ids.splice(lowerBound(ids, id), 0, id);
}
