import { randomUUID } from 'node:crypto';
import { WebhookError } from './errors';
import { type HeapSlot, IndexedHeap } from './indexed-heap';
import type { Claim, ClaimOptions, DeliveryQueue, QueueCapabilities, QueueEntry } from './queue';
import type { TransactionOptions } from './store';
import { assertNoTransaction } from './transaction-unsupported';

/** Options of {@link createMemoryQueue}. */
export interface MemoryQueueOptions {
  /**
   * Epoch-ms clock `waitForWork` uses to tell when the earliest scheduled entry
   * falls due. Pass the service's clock when tests drive time. `claim`, `renew`
   * and the rest use the `now` they are given, never this clock.
   * @default Date.now
   */
  clock?: () => number;
}

/** One queued delivery; `claimId` is null while nobody holds it. */
interface QueuedEntry extends HeapSlot {
  readonly deliveryId: string;
  readonly agencyId: string;
  runAt: number;
  claimId: string | null;
  leaseUntil: number;
}

/** An agency's entries, ordered by when each becomes claimable. */
interface AgencyLane extends HeapSlot {
  readonly agencyId: string;
  readonly entries: IndexedHeap<QueuedEntry>;
}

/** setTimeout's largest delay; a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Creates the in-memory {@link DeliveryQueue}: the embedded default, for a single
 * process, tests and development. Entries are lost on restart (the worker's
 * recovery sweep re-enqueues pending deliveries from the store).
 *
 * Rules this queue follows (the conformance suite pins the shared ones):
 * - An entry is claimable when unclaimed and `runAt <= now`, or when its lease
 *   has ended (`leaseUntil <= now`); a claim gives it a new `claimId` from
 *   `crypto.randomUUID()`.
 * - `renew`, `ack` and `reschedule` succeed only while the entry still carries the
 *   caller's `claimId`. An expired lease that nobody has re-claimed is therefore
 *   still honoured (nobody else holds the entry, so finishing is safe); once
 *   another claim or an `enqueue` replaced the `claimId`, the old one is refused.
 * - `enqueue` replaces an existing entry and drops its live claim.
 * - Claims come out earliest-claimable first; entries of excluded agencies are
 *   skipped without being consumed, and the limit is filled from other agencies.
 * - `waitForWork` resolves on `enqueue` or `reschedule`, when the earliest entry
 *   that is not yet claimable becomes so (by `clock`), on timeout or on abort.
 *   Entries that are already claimable do not wake it: the caller has just
 *   claimed what it could, and waking at once would spin on entries it excluded.
 *
 * @remarks Entries sit in one heap per agency and the agencies in a heap keyed by
 * their earliest entry, so `claim` costs O(limit · log n) plus one step per
 * excluded agency, whatever the backlog. Passing `options.transaction` throws a
 * `WebhookError` with code `transactions_unsupported`.
 *
 * @example
 * ```ts
 * const queue = createMemoryQueue();
 * const webhooks = createWebhookService({ store: createMemoryStore(), queue });
 * ```
 */
export function createMemoryQueue(options: MemoryQueueOptions = {}): DeliveryQueue {
  return new MemoryDeliveryQueue(options.clock ?? Date.now);
}

class MemoryDeliveryQueue implements DeliveryQueue {
  readonly capabilities: QueueCapabilities = Object.freeze({
    transactions: false,
    excludeAgencies: true,
    wakeups: true,
  });

  readonly #clock: () => number;
  readonly #entries = new Map<string, QueuedEntry>();
  readonly #lanes = new Map<string, AgencyLane>();
  /** Lanes by their earliest claimable time; a lane is here exactly while it has entries. */
  readonly #schedule = new IndexedHeap<AgencyLane>((a, b) => laneTime(a) < laneTime(b));
  readonly #waiters = new Set<() => void>();

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  async enqueue(entry: QueueEntry, options?: TransactionOptions): Promise<void> {
    assertNoTransaction(options, 'memory queue');
    let queued = this.#entries.get(entry.deliveryId);
    if (queued && queued.agencyId !== entry.agencyId) {
      this.#unplace(queued);
      queued = undefined;
    }
    if (!queued) {
      queued = {
        deliveryId: entry.deliveryId,
        agencyId: entry.agencyId,
        runAt: 0,
        claimId: null,
        leaseUntil: 0,
        heapIndex: -1,
      };
      this.#entries.set(queued.deliveryId, queued);
    }
    queued.runAt = entry.runAt;
    queued.claimId = null;
    this.#place(queued);
    this.#wakeWaiters();
  }

  async claim(options: ClaimOptions): Promise<Claim[]> {
    if (!(options.leaseMs > 0)) {
      throw new WebhookError(
        'validation_failed',
        `leaseMs must be a positive number of milliseconds, got ${options.leaseMs}.`,
      );
    }
    const excluded = new Set(options.excludeAgencies ?? []);
    const claims: Claim[] = [];
    const skipped: AgencyLane[] = [];
    while (claims.length < options.limit) {
      const lane = this.#schedule.peek();
      if (!lane || laneTime(lane) > options.now) break;
      if (excluded.has(lane.agencyId)) {
        // Set the whole lane aside: one step per excluded agency, however deep its backlog.
        this.#schedule.remove(lane);
        skipped.push(lane);
        continue;
      }
      claims.push(this.#grant(lane.entries.peek() as QueuedEntry, options.leaseMs, options.now));
    }
    for (const lane of skipped) this.#schedule.push(lane);
    return claims;
  }

  async renew(claim: Claim, leaseMs: number, now: number): Promise<boolean> {
    const entry = this.#held(claim);
    if (!entry) return false;
    entry.leaseUntil = now + leaseMs;
    this.#place(entry);
    return true;
  }

  async ack(claim: Claim): Promise<boolean> {
    const entry = this.#held(claim);
    if (!entry) return false;
    this.#entries.delete(entry.deliveryId);
    this.#unplace(entry);
    return true;
  }

  async reschedule(claim: Claim, runAt: number): Promise<boolean> {
    const entry = this.#held(claim);
    if (!entry) return false;
    entry.claimId = null;
    entry.runAt = runAt;
    this.#place(entry);
    this.#wakeWaiters();
    return true;
  }

  waitForWork(options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    const { signal } = options;
    return new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        this.#waiters.delete(finish);
        resolve();
      };
      this.#waiters.add(finish);
      signal?.addEventListener('abort', finish, { once: true });
      timer = setTimeout(finish, timerDelay(Math.min(options.timeoutMs, this.#msUntilNextDue())));
    });
  }

  #grant(entry: QueuedEntry, leaseMs: number, now: number): Claim {
    entry.claimId = randomUUID();
    entry.leaseUntil = now + leaseMs;
    this.#place(entry);
    return {
      deliveryId: entry.deliveryId,
      agencyId: entry.agencyId,
      claimId: entry.claimId,
      runAt: entry.runAt,
      leaseUntil: entry.leaseUntil,
    };
  }

  /** The entry while it still carries this claim's id. */
  #held(claim: Claim): QueuedEntry | undefined {
    const entry = this.#entries.get(claim.deliveryId);
    return entry?.claimId === claim.claimId && entry.claimId !== null ? entry : undefined;
  }

  /** Puts a new entry in its lane, or re-sorts one whose times changed. */
  #place(entry: QueuedEntry): void {
    let lane = this.#lanes.get(entry.agencyId);
    if (!lane) {
      lane = { agencyId: entry.agencyId, entries: new IndexedHeap(entryBefore), heapIndex: -1 };
      this.#lanes.set(lane.agencyId, lane);
    }
    if (entry.heapIndex < 0) lane.entries.push(entry);
    else lane.entries.update(entry);
    if (lane.heapIndex < 0) this.#schedule.push(lane);
    else this.#schedule.update(lane);
  }

  #unplace(entry: QueuedEntry): void {
    const lane = this.#lanes.get(entry.agencyId);
    if (!lane) return;
    lane.entries.remove(entry);
    if (lane.entries.size > 0) {
      this.#schedule.update(lane);
      return;
    }
    this.#schedule.remove(lane);
    this.#lanes.delete(lane.agencyId);
  }

  /** Ms until the earliest entry becomes claimable; Infinity when none is pending in the future. */
  #msUntilNextDue(): number {
    const lane = this.#schedule.peek();
    if (!lane) return Number.POSITIVE_INFINITY;
    const delay = laneTime(lane) - this.#clock();
    return delay > 0 ? delay : Number.POSITIVE_INFINITY;
  }

  #wakeWaiters(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}

/** When the entry can be claimed: its `runAt`, or the end of its lease while held. */
function claimableAt(entry: QueuedEntry): number {
  return entry.claimId === null ? entry.runAt : entry.leaseUntil;
}

function entryBefore(a: QueuedEntry, b: QueuedEntry): boolean {
  return claimableAt(a) < claimableAt(b);
}

function laneTime(lane: AgencyLane): number {
  const first = lane.entries.peek();
  return first ? claimableAt(first) : Number.POSITIVE_INFINITY;
}

/** A delay setTimeout honours: non-negative, finite, at most its 32-bit maximum. */
function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}
