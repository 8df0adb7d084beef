import type { TransactionOptions } from './store';

/** A unit of due work: "attempt this delivery at `runAt`". */
export interface QueueEntry {
  deliveryId: string;
  /** Lets workers cap in-flight attempts per agency without reading the store. */
  agencyId: string;
  /** Epoch ms at or after which the entry may be claimed. */
  runAt: number;
}

/**
 * A worker's exclusive hold on an entry until `leaseUntil`. Only the holder of
 * `claimId` may renew, ack or reschedule; once the lease has expired another
 * worker may claim the entry, and the old `claimId` stops working.
 */
export interface Claim {
  deliveryId: string;
  agencyId: string;
  /** Unique per claim; a re-claim of the same entry gets a new one. */
  claimId: string;
  /** The `runAt` the entry had when claimed (queue lag = claim time − runAt). */
  runAt: number;
  /** Epoch ms at which the lease ends unless renewed. */
  leaseUntil: number;
}

/** Request of {@link DeliveryQueue.claim}. */
export interface ClaimOptions {
  /** Maximum entries to claim (≥ 1). */
  limit: number;
  /** Lease length in ms; longer than one attempt's timeout. */
  leaseMs: number;
  /** Epoch ms, from the service clock: entries with `runAt <= now` are due. */
  now: number;
  /**
   * Agencies whose entries should be skipped this time (their in-flight cap is
   * reached). A hint: a queue without `capabilities.excludeAgencies` may return
   * such entries, and the worker then reschedules them shortly.
   */
  excludeAgencies?: readonly string[];
  /**
   * Most live claims one agency may hold: an agency that already holds this many
   * unexpired leases gets no entry from this claim. Where
   * `capabilities.sharedAgencyLimit` is true the queue counts every holder's
   * leases on the backend (every worker process); otherwise only this call's own
   * claims count, and the worker adds its own in-flight count through `excludeAgencies`.
   */
  perAgencyLimit?: number;
}

/** Optional behaviours, declared rather than guessed from which methods exist. */
export interface QueueCapabilities {
  /** `enqueue` honours `options.transaction`. */
  transactions: boolean;
  /** `claim` honours `excludeAgencies`. */
  excludeAgencies: boolean;
  /** `waitForWork` wakes on enqueue (rather than only timing out). */
  wakeups: boolean;
  /**
   * `claim` counts `perAgencyLimit` against every live lease on the backend, so
   * the cap holds across worker processes.
   * @default false
   */
  sharedAgencyLimit?: boolean;
  /**
   * The queue lives in this process, so a `claim` costs no round trip. Workers
   * then claim as soon as one slot is free; otherwise they wait until an eighth
   * of their slots are free and claim those together.
   * @default false
   */
  inProcess?: boolean;
}

/**
 * Due-work scheduling with leases: the at-least-once engine behind the worker.
 *
 * Safe for many workers on many machines sharing one backend: an entry is held by
 * at most one live claim at a time, an expired lease returns the entry to the
 * pool, and every operation on a claim checks the `claimId` first.
 *
 * Claims are fair across agencies: they go round robin over the agencies with
 * claimable entries, one entry per agency per round, earliest `runAt` first
 * within an agency, and the rotation carries on from one claim to the next. An
 * agency's backlog of 10,000 therefore delays another agency's next entry by at
 * most one round, never by its backlog.
 *
 * @remarks Deliberately out of the contract: ordering between entries due at the
 * same time, delivery content (the queue carries ids only), and retries (the
 * worker decides `runAt` from the state machine and reschedules).
 */
export interface DeliveryQueue {
  readonly capabilities: QueueCapabilities;

  /**
   * Makes the delivery due at `entry.runAt`. When the delivery already has an entry
   * it is replaced and any live claim on it is dropped (the old holder's renew, ack
   * and reschedule then return false), so a replay can never be swallowed by a
   * worker that is just finishing the previous attempt.
   */
  enqueue(entry: QueueEntry, options?: TransactionOptions): Promise<void>;

  /**
   * Adds each entry only when its delivery has no entry at all (queued or
   * claimed), so a live claim is never dropped; returns how many were added.
   * Optional: the worker's recovery sweep prefers it to `enqueue` when present.
   */
  enqueueMissing?(entries: readonly QueueEntry[]): Promise<number>;

  /** Claims up to `limit` due entries, each with a fresh lease of `leaseMs`. */
  claim(options: ClaimOptions): Promise<Claim[]>;

  /** Extends the lease to `now + leaseMs`. False when the claim is no longer held. */
  renew(claim: Claim, leaseMs: number, now: number): Promise<boolean>;

  /** Removes the entry for good. False when the claim is no longer held; a second ack is a no-op returning false. */
  ack(claim: Claim): Promise<boolean>;

  /** Releases the claim and makes the entry due again at `runAt`. False when the claim is no longer held. */
  reschedule(claim: Claim, runAt: number): Promise<boolean>;

  /**
   * Resolves when work may have become due (an enqueue, where `capabilities.wakeups`),
   * or after `timeoutMs`, or when `signal` aborts, whichever comes first. Never rejects.
   */
  waitForWork(options: { timeoutMs: number; signal?: AbortSignal }): Promise<void>;

  /** Releases connections the queue opened itself (not injected ones). Idempotent. */
  close?(): Promise<void>;

  /**
   * Where the queue reports a problem it finds by itself, outside any call
   * (a wake-up channel that hears nothing, so workers poll). Called by
   * `createWebhookService` with a function that passes the error to the service's
   * `hooks.onError` (stage `'queue'`) and logger; a queue used by several
   * services reports to each.
   */
  reportErrorsTo?(report: (error: unknown) => void): void;
}
