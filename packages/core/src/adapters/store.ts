import type { SignatureScheme, SigningKeyRecord, WebhookConfigRecord } from '../config/config';
import type { AttemptRecord } from '../delivery/attempt-record';
import type { CircuitRecord, CircuitState } from '../delivery/circuit-breaker';
import type { DeliveryRecord, DeliveryStatus, DeliveryUpdate } from '../delivery/delivery';
import type { RecoveryRecord, RecoveryUpdate } from '../delivery/recovery';
import { WebhookError } from '../errors';

/**
 * Options every write that can join a host transaction accepts.
 *
 * @remarks `transaction` is adapter-specific and opaque to core (for the
 * PostgreSQL adapter: a `pg` client inside `BEGIN`). An adapter whose
 * `capabilities.transactions` is false throws a `WebhookError` when given one,
 * rather than silently writing outside the host's transaction.
 */
export interface TransactionOptions {
  transaction?: unknown;
}

/** Fields PUT /config writes, plus what a create needs. */
export interface UpsertConfigInput {
  agencyId: string;
  webhookUrl: string;
  enabled: boolean;
  subscribedEventTypes: string[];
  /** Epoch ms; becomes `updatedAt` (and `createdAt` on create). */
  now: number;
  /** Used only when the configuration is created. */
  newId: string;
  /** Used only when the configuration is created; an update never changes the secret. */
  newSigningSecret: string;
  /** Stored as given; undefined keeps the stored value on update (and means `'service'` on create). */
  signatureScheme?: SignatureScheme;
  /**
   * Replaces the whole key list, stored verbatim; undefined keeps the stored list on update
   * (and means `[]` on create).
   */
  signingKeys?: SigningKeyRecord[];
}

/** Precondition of {@link WebhookStore.setSigningSecret}. */
export interface SetSigningSecretOptions {
  /**
   * Compare-and-set: replace the secret only while the stored value still equals
   * this one (exactly as `getConfig` or `listConfigs` returned it). What re-sealing
   * a secret under a new key uses, so it can never overwrite a rotation that
   * landed in between.
   */
  expectedSigningSecret?: string;
}

/** What {@link WebhookStore.disableConfig} writes, and its precondition. */
export interface DisableConfigInput {
  /** Stored as `disabledReason`, such as `auto_disabled_failing`. */
  reason: string;
  /** Epoch ms; becomes `disabledAt` and `updatedAt`. */
  now: number;
  /**
   * Compare-and-set: disable only while the stored `updatedAt` still equals this
   * (the value the caller read), so a PUT that landed in between wins.
   */
  expectedUpdatedAt: number;
}

/** Options of {@link WebhookStore.listRecoveries}. */
export interface RecoveryListOptions {
  /** Most records to return, 1 or more. */
  limit: number;
  /** Only recoveries whose id sorts before this one (the last id of the previous page). */
  beforeId?: string;
}

/** Options of {@link WebhookStore.replayRecoveryPage}. */
export interface RecoveryPageOptions {
  /** Most deliveries the page replays. */
  limit: number;
  /** Epoch ms: the replays are due at this time, as `replayUpdate(record, now, 'recovery')` makes them. */
  now: number;
  /** Epoch ms: the recovery's lease end, written with the open page. */
  leaseUntil: number;
}

/** What {@link WebhookStore.replayRecoveryPage} did. */
export interface RecoveryPageReplay {
  /**
   * The recovery as stored now: with the page open (`pageEndId` its last delivery's id,
   * version one higher), or as given (`pageEndId` null, nothing written) when no failed
   * delivery was left.
   */
  recovery: RecoveryRecord;
  /**
   * The page's replayed deliveries, newest first. Empty when no failed delivery was left;
   * on an open page, it lacks any delivery that changed before the store replayed it.
   */
  replayedIds: string[];
}

/** Page request of {@link WebhookStore.listConfigs}. */
export interface ListConfigsOptions {
  /** Return only configurations whose agency id sorts strictly after this one; null for the first page. */
  after: string | null;
  /** Maximum number of configurations to return (≥ 1). */
  limit: number;
}

/**
 * Page request of {@link WebhookStore.listDeliveries}. Every filter given must
 * match (AND); an absent one matches everything.
 *
 * @remarks The time bounds filter on `createdAt` exactly, while the order is by
 * `id`. The service makes both from one clock, so they normally agree, but a store
 * must not rely on it: a record whose `createdAt` disagrees with its id's time is
 * still filtered by `createdAt` and still placed by its id.
 */
export interface ListDeliveriesOptions {
  /** Only deliveries with this status. */
  status?: DeliveryStatus;
  /** Only deliveries of this event type (exact, case-sensitive). */
  eventType?: string;
  /** Only deliveries about this entity (exact); never matches a delivery whose `entityId` is null. */
  entityId?: string;
  /** Only deliveries with `createdAt` at or after this time (epoch ms, inclusive). */
  createdSince?: number;
  /** Only deliveries with `createdAt` strictly before this time (epoch ms, exclusive). */
  createdBefore?: number;
  /** Maximum number of records to return (≥ 1). */
  limit: number;
  /** Return only deliveries whose id sorts strictly before this id (keyset paging). */
  beforeId?: string;
}

/**
 * What {@link WebhookStore.countDeliveries} counts: the filters of
 * {@link ListDeliveriesOptions}, with exactly their meaning (every filter given
 * must match; `createdSince` inclusive, `createdBefore` exclusive, on `createdAt`),
 * without the paging.
 */
export type CountDeliveriesFilter = Omit<ListDeliveriesOptions, 'limit' | 'beforeId'>;

/** The precondition of a compare-and-set update. */
export interface DeliveryExpectation {
  /** The `attempt` value the caller read. */
  attempt: number;
  /** The `status` value the caller read. */
  status: DeliveryStatus;
}

/** What {@link WebhookStore.purgeDeliveries} deletes. */
export interface PurgeDeliveriesOptions {
  /** Only deliveries with `createdAt` strictly before this time (epoch ms). */
  olderThan: number;
  /** Most deliveries one call deletes (≥ 1): callers drain a backlog in several calls. */
  limit: number;
  /**
   * Only finished deliveries with this status; absent, both `success` and `failed`.
   * A store keeps each status apart, so a purge of one never walks the other's
   * records (which a longer retention may keep for months).
   */
  status?: 'success' | 'failed';
}

/** What {@link WebhookStore.purgeRecoveries} deletes. */
export interface PurgeRecoveriesOptions {
  /** Only recoveries whose `completedAt` is strictly before this time (epoch ms). */
  olderThan: number;
  /** Most recoveries one call deletes (≥ 1): callers drain a backlog in several calls. */
  limit: number;
}

/** Optional behaviours, declared rather than guessed from which methods exist. */
export interface StoreCapabilities {
  /** `insertDelivery` honours `options.transaction`. */
  transactions: boolean;
  /**
   * `purgeDeliveries` is implemented, and `purgeRecoveries` too unless the store was
   * written before it (see {@link WebhookStore.purgeRecoveries}).
   */
  purge: boolean;
}

/**
 * Persistence of configurations and the delivery log.
 *
 * Every method is safe to call concurrently from many workers on many machines
 * sharing one backend. Timestamps are epoch milliseconds supplied by the caller
 * (the service's clock); stores never read the wall clock for records.
 *
 * @remarks Deliberately out of the contract: connections, pooling, migrations and
 * key layout (each adapter owns those), and any notion of "due" work, which is the
 * {@link DeliveryQueue}'s job. A store that is also the queue (PostgreSQL) may share
 * rows between the two, but callers never rely on that.
 */
export interface WebhookStore {
  readonly capabilities: StoreCapabilities;

  /** The agency's configuration, or null when it has none. */
  getConfig(agencyId: string): Promise<WebhookConfigRecord | null>;

  /**
   * Creates the agency's configuration (with `newId` and `newSigningSecret`) or,
   * when one exists, updates its URL, enabled flag and subscriptions. Atomic: two
   * concurrent first PUTs yield one configuration, one `created: true`.
   * An update never changes `id`, `signingSecret` or `createdAt`, and clears
   * `disabledAt` and `disabledReason` (null on create too). `signatureScheme` and
   * `signingKeys` are written when given and kept when undefined (`'service'` and `[]`
   * on create).
   */
  upsertConfig(input: UpsertConfigInput): Promise<{ config: WebhookConfigRecord; created: boolean }>;

  /**
   * Replaces the signing secret and `updatedAt` at once, and returns the updated
   * configuration. Returns null, and changes nothing, when the agency has no
   * configuration or, with `options.expectedSigningSecret`, when the stored secret
   * is no longer that value. Of concurrent calls expecting the same value, one wins.
   */
  setSigningSecret(
    agencyId: string,
    signingSecret: string,
    now: number,
    options?: SetSigningSecretOptions,
  ): Promise<WebhookConfigRecord | null>;

  /**
   * Replaces the configuration's `signingKeys` with `signingKeys` (stored verbatim, in
   * order) and sets `updatedAt` to `now`, in one atomic write, and returns the updated
   * configuration; null, changing nothing, when the agency has no configuration.
   * Nothing else changes: unlike `upsertConfig`, it keeps `enabled`, `disabledAt` and
   * `disabledReason` (a key rotation does not re-enable a disabled endpoint).
   *
   * @remarks Last write wins: there is no precondition, so of two concurrent calls the
   * later one's list stays. The service writes keys rarely (PUT /config, a key rotation,
   * re-sealing under a new encryption key) and re-reads the list right before re-sealing.
   */
  setSigningKeys(
    agencyId: string,
    signingKeys: SigningKeyRecord[],
    now: number,
  ): Promise<WebhookConfigRecord | null>;

  /**
   * One page of every agency's configuration, ascending by agency id in binary
   * order (UTF-8 bytes, i.e. code points). Pass the last agency id of a page as
   * `after` for the next; a page shorter than `limit` is the last. A walk sees
   * every configuration that exists throughout it exactly once; one created or
   * deleted during the walk may or may not be seen.
   */
  listConfigs(options: ListConfigsOptions): Promise<WebhookConfigRecord[]>;

  /**
   * Compare-and-set: sets `enabled: false`, `disabledAt` and `updatedAt` to
   * `input.now` and `disabledReason` to `input.reason`, only while the stored
   * configuration is enabled and its `updatedAt` equals `input.expectedUpdatedAt`;
   * returns the updated configuration, or null (changing nothing) when it is
   * missing, already disabled or was written since. Of concurrent calls, one wins.
   * Nothing else changes; the next `upsertConfig` clears `disabledAt` and `disabledReason`.
   */
  disableConfig(agencyId: string, input: DisableConfigInput): Promise<WebhookConfigRecord | null>;

  /** Deletes the agency's configuration; false when there was none. Deliveries are kept. */
  deleteConfig(agencyId: string): Promise<boolean>;

  /**
   * Inserts a delivery. Idempotent on (`agencyId`, `eventId`): when a delivery for
   * that event exists already, nothing is written and the existing one is returned
   * with `created: false`.
   */
  insertDelivery(
    record: DeliveryRecord,
    options?: TransactionOptions,
  ): Promise<{ delivery: DeliveryRecord; created: boolean }>;

  /** The delivery with this id (of any agency), or null. */
  getDelivery(deliveryId: string): Promise<DeliveryRecord | null>;

  /**
   * The agency's deliveries, newest first (descending id), filtered by every
   * filter of `options` and paged by id: at most `limit` of them, all sorting
   * before `beforeId` when given. Following `beforeId` from page to page with the
   * same filters visits each matching delivery once.
   */
  listDeliveries(agencyId: string, options: ListDeliveriesOptions): Promise<DeliveryRecord[]>;

  /**
   * How many of the agency's deliveries match `filter`: exactly as many as
   * listing every page with the same filters would return, answered by the
   * backend without reading the records (what a bulk recovery's `matched` is).
   *
   * @remarks Optional, so a store written before it keeps working: without it,
   * core counts by paging `listDeliveries`, which reads every matching record.
   */
  countDeliveries?(agencyId: string, filter: CountDeliveriesFilter): Promise<number>;

  /**
   * Compare-and-set: applies `update` only when the stored `attempt` and `status`
   * still equal `expected`, and returns the updated record; returns null when the
   * precondition failed or the delivery does not exist. This is what makes an
   * attempt recorded once even when two workers raced on it.
   *
   * When `update.recordedAttempt` is set, it is appended to the delivery's attempt
   * history in the same atomic step: appended if and only if the update is
   * applied, never by a compare-and-set that failed. The history is keyed by
   * attempt number: one whose number it holds already (possible only when a
   * record's counter was set back by hand) keeps its first entry.
   */
  updateDelivery(
    deliveryId: string,
    expected: DeliveryExpectation,
    update: DeliveryUpdate,
  ): Promise<DeliveryRecord | null>;

  /**
   * The delivery's attempt history, oldest first (ascending `attempt`): every
   * attempt an {@link WebhookStore.updateDelivery} recorded, exactly as given.
   * Empty for an unknown delivery and for one not attempted yet. Kept as long as
   * the delivery: whatever deletes the delivery (`purgeDeliveries`, an adapter's
   * retention) deletes its history with it.
   */
  listAttempts(deliveryId: string): Promise<AttemptRecord[]>;

  /**
   * Pending deliveries whose `nextRetryAt` is at or before `dueBefore`, oldest due
   * first: what a recovery sweep re-enqueues when a queue entry was lost.
   */
  listDuePending(dueBefore: number, limit: number): Promise<DeliveryRecord[]>;

  /**
   * Deletes up to `limit` finished (`success` or `failed`, or only `status`) deliveries
   * created before `olderThan`, with their attempt histories; never a pending one.
   * Returns how many were deleted: fewer than `limit` means none is left. Safe to
   * run from many workers at once (each record is deleted by one of them). Present
   * when `capabilities.purge` is true.
   */
  purgeDeliveries?(options: PurgeDeliveriesOptions): Promise<number>;

  /**
   * Deletes up to `limit` finished bulk recoveries (every status but `running`:
   * `completed` and `cancelled`), of every agency, whose `completedAt` is before
   * `olderThan`; never a running one, however old it is, and never one without a
   * `completedAt`. A deleted recovery is gone from `getRecovery`, `listRecoveries`
   * and every index the store keeps of it; the deliveries it replayed are untouched.
   * Returns how many were deleted: fewer than `limit` means none is left. Safe to
   * run from many workers at once (each record is deleted by one of them). Present
   * when `capabilities.purge` is true.
   *
   * @remarks Optional even then, so a store written before it keeps working: without
   * it the worker's retention round purges deliveries only and keeps every recovery,
   * as earlier releases did.
   */
  purgeRecoveries?(options: PurgeRecoveriesOptions): Promise<number>;

  /** The agency's circuit breaker, or null when it has never been written. */
  getCircuit(agencyId: string): Promise<CircuitRecord | null>;

  /**
   * Compare-and-set of the agency's circuit breaker: writes `state` only when the
   * stored version still equals `expectedVersion` (null: only when none is stored),
   * and returns the record written, its version one higher (1 for a new one).
   * Returns null when the precondition failed. Independent of the configuration:
   * deleting a configuration leaves its breaker.
   */
  saveCircuit(
    agencyId: string,
    expectedVersion: number | null,
    state: CircuitState,
  ): Promise<CircuitRecord | null>;

  /**
   * Stores a new bulk recovery unless the agency has one `running` already, atomically:
   * of concurrent creates for one agency, one is stored. Returns the record stored with
   * `created: true`, or the agency's running recovery with `created: false` (nothing written).
   */
  createRecovery(record: RecoveryRecord): Promise<{ recovery: RecoveryRecord; created: boolean }>;

  /** The recovery with this id (of any agency), or null. */
  getRecovery(recoveryId: string): Promise<RecoveryRecord | null>;

  /**
   * Compare-and-set: applies `update` only while the stored version still equals
   * `expectedVersion`, and returns the record written (version one higher); null when
   * the precondition failed or the recovery does not exist. A recovery that leaves
   * `running` no longer counts as the agency's running one.
   */
  updateRecovery(
    recoveryId: string,
    expectedVersion: number,
    update: RecoveryUpdate,
  ): Promise<RecoveryRecord | null>;

  /**
   * Opens the recovery's next page and replays it, in one atomic step: the next `limit`
   * `failed` deliveries of its window (agency, `since`, `until`) and current event type
   * (`cursorTypeIndex`), newest first below `cursorId`, each made pending exactly as
   * `updateDelivery` with `replayUpdate(record, now, 'recovery')` would, and the recovery
   * written with `pageEndId` (the page's last id) and `leaseUntil`, version one higher.
   * Null, with nothing written, when the stored version is no longer `recovery.version`.
   * When no failed delivery is left, nothing is written and `replayedIds` is empty.
   * The store need not queue the replays: the walker does (a store linked to its queue may
   * queue them in the same step, and answer the walker's `enqueueMissing` without a call).
   *
   * @remarks Optional: without it the walker reads the page, opens it and replays each
   * delivery with `updateDelivery`, which moves every record to the worker and back. A
   * store may also replay part of a page in a second step, so long as each write is
   * atomic and the page is open before the first: a walk that dies in between leaves the
   * page open, and the worker that takes it over finishes it.
   */
  replayRecoveryPage?(
    recovery: RecoveryRecord,
    page: RecoveryPageOptions,
  ): Promise<RecoveryPageReplay | null>;

  /** Up to `limit` recoveries with status `running`, of every agency, oldest created first. */
  listRunningRecoveries(limit: number): Promise<RecoveryRecord[]>;

  /**
   * The agency's recoveries of every status, newest first by id (ids sort by creation
   * time; compared as UTF-8 bytes, as the delivery list does), only those sorting before
   * `beforeId` when given, at most `limit`.
   */
  listRecoveries(agencyId: string, options: RecoveryListOptions): Promise<RecoveryRecord[]>;

  /** Releases connections the store opened itself (not injected ones). Idempotent. */
  close?(): Promise<void>;
}

/**
 * Throws when a caller passes a host transaction to an adapter that cannot join
 * one. Writing outside the host's transaction would silently break the outbox
 * guarantee (the delivery would survive a rollback), so refusing is the only
 * safe answer.
 */
export function assertNoTransaction(options: TransactionOptions | undefined, adapter: string): void {
  if (options?.transaction === undefined) return;
  throw new WebhookError(
    'transactions_unsupported',
    `The ${adapter} cannot join a host transaction (capabilities.transactions is false). ` +
      'Call it without `transaction`, or use an adapter that supports transactions, such as @svc/webhooks-pg.',
  );
}
