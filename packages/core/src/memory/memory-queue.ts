import type { Claim, ClaimOptions, DeliveryQueue, QueueCapabilities, QueueEntry } from '../adapters/queue';
import type { TransactionOptions } from '../adapters/store';
import { assertNoTransaction } from '../adapters/store';
import { WebhookError } from '../errors';
import { type HeapSlot, IndexedHeap } from './indexed-heap';
import { Rotation, type RotationSlot } from './rotation';
import { Timeline, type TimelineSlot } from './timeline';

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

/**
 * One queued delivery. It sits in its lane's `ready` timeline (by `runAt`) while
 * `claimId` is null, and in the lane's `leased` timeline (by `leaseUntil`) while
 * held; an expired lease stays there, still held, until another claim takes it.
 */
interface QueuedEntry extends TimelineSlot {
  readonly deliveryId: string;
  readonly lane: AgencyLane;
  runAt: number;
  claimId: string | null;
  leaseUntil: number;
}

/**
 * An agency's entries. Held ones are kept apart from ready ones so that a claim
 * (leases run 30 s and more, far behind the backlog) and the ack that follows
 * never sift through the backlog.
 */
interface AgencyLane extends HeapSlot, RotationSlot<AgencyLane> {
  readonly agencyId: string;
  readonly ready: Timeline<QueuedEntry>;
  readonly leased: Timeline<QueuedEntry>;
}

/**
 * Claim ids: a process-wide counter. They only need to differ from every other
 * claim's in this process (nothing outside it ever sees them); a random UUID per
 * claim cost more than the rest of the claim in bench/delivery (V8 builds it from
 * twenty pieces that are joined on first comparison).
 */
let claimCount = 0;

function nextClaimId(): string {
  claimCount += 1;
  return `c${claimCount}`;
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
 *   has ended (`leaseUntil <= now`); a claim gives it a new `claimId`, unique
 *   among all the claims of all memory queues in the process.
 * - `renew`, `ack` and `reschedule` succeed only while the entry still carries the
 *   caller's `claimId`. An expired lease that nobody has re-claimed is therefore
 *   still honoured (nobody else holds the entry, so finishing is safe); once
 *   another claim or an `enqueue` replaced the `claimId`, the old one is refused.
 * - `enqueue` replaces an existing entry and drops its live claim.
 * - Claims go round robin over the agencies with claimable entries (the
 *   rotation below), one entry per agency per turn, earliest-claimable first
 *   within an agency; entries of excluded agencies are skipped without being
 *   consumed, and the limit is filled from other agencies.
 * - `perAgencyLimit` counts the agency's live leases in this queue: the queue is
 *   the whole backend, so the cap is shared by every worker using it.
 * - `waitForWork` resolves on `enqueue` or `reschedule`, when the earliest entry
 *   that is not yet claimable becomes so (by `clock`), on timeout or on abort.
 *   Entries that are already claimable do not wake it: the caller has just
 *   claimed what it could, and waking at once would spin on entries it excluded.
 *
 * @remarks Each agency keeps its unclaimed entries ordered by `runAt` and its held
 * ones by `leaseUntil`. An agency with nothing claimable yet waits in a heap
 * keyed by its earliest claimable time; once that time comes, a claim moves it to
 * the back of the rotation, and each agency served goes to the back again, so
 * `claim` costs O(limit + log n) plus one step per excluded or capped agency,
 * whatever the backlog. Times that arrive in order (entries enqueued at
 * "now", leases of one length) are appended rather than sifted, so a claim, ack
 * or renew is O(1) in an agency's backlog in that common case. Passing
 * `options.transaction` throws a `WebhookError` with code `transactions_unsupported`.
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
    inProcess: true,
    sharedAgencyLimit: true,
  });

  readonly #clock: () => number;
  readonly #entries = new Map<string, QueuedEntry>();
  readonly #lanes = new Map<string, AgencyLane>();
  /**
   * Lanes with entries but nothing claimable when last looked at, keyed by their
   * earliest claimable time. Every lane with entries is here or in #rotation.
   */
  readonly #schedule = new IndexedHeap<AgencyLane>();
  /** Lanes with claimable entries, in turn order: the front one is served next. */
  readonly #rotation = new Rotation<AgencyLane>();
  readonly #waiters = new Set<() => void>();

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  async enqueue(entry: QueueEntry, options?: TransactionOptions): Promise<void> {
    assertNoTransaction(options, 'memory queue');
    let queued = this.#entries.get(entry.deliveryId);
    if (queued && queued.lane.agencyId !== entry.agencyId) {
      this.#detach(queued);
      this.#refresh(queued.lane);
      queued = undefined;
    }
    if (queued) {
      this.#detach(queued);
    } else {
      queued = {
        deliveryId: entry.deliveryId,
        lane: this.#laneOf(entry.agencyId),
        runAt: 0,
        claimId: null,
        leaseUntil: 0,
        heapIndex: -1,
        runIndex: -1,
      };
      this.#entries.set(queued.deliveryId, queued);
    }
    queued.runAt = entry.runAt;
    queued.claimId = null;
    queued.lane.ready.add(queued, entry.runAt);
    this.#refresh(queued.lane);
    this.#wakeWaiters();
  }

  async claim(options: ClaimOptions): Promise<Claim[]> {
    if (!(options.leaseMs > 0)) {
      throw new WebhookError(
        'validation_failed',
        `leaseMs must be a positive number of milliseconds, got ${options.leaseMs}.`,
      );
    }
    const { now, limit, perAgencyLimit } = options;
    this.#promoteDue(now);
    const excluded = options.excludeAgencies?.length ? new Set(options.excludeAgencies) : undefined;
    const claims: Claim[] = [];
    let skipped: AgencyLane[] | undefined;
    while (claims.length < limit) {
      const lane = this.#rotation.shift();
      if (!lane) break;
      if (laneTime(lane) > now) {
        this.#schedule.push(lane, laneTime(lane));
        continue;
      }
      const full = perAgencyLimit !== undefined && lane.leased.size >= perAgencyLimit;
      // A full lane may still take over a lease that has ended: that adds no live lease.
      if (excluded?.has(lane.agencyId) || (full && !(lane.leased.firstTime() <= now))) {
        skipped ??= [];
        skipped.push(lane);
        continue;
      }
      claims.push(this.#grant(lane, options.leaseMs, now, full));
      if (laneTime(lane) <= now) this.#rotation.push(lane);
      else this.#schedule.push(lane, laneTime(lane));
    }
    // Skipped lanes keep their turn: back to the front, in the order they stood.
    if (skipped)
      for (let index = skipped.length - 1; index >= 0; index -= 1)
        this.#rotation.unshift(skipped[index] as AgencyLane);
    return claims;
  }

  /** Moves every lane whose earliest entry has become claimable to the back of the rotation, oldest first. */
  #promoteDue(now: number): void {
    while (this.#schedule.size > 0 && this.#schedule.peekKey() <= now) {
      const lane = this.#schedule.peek() as AgencyLane;
      this.#schedule.remove(lane);
      this.#rotation.push(lane);
    }
  }

  async renew(claim: Claim, leaseMs: number, now: number): Promise<boolean> {
    const entry = this.#held(claim);
    if (!entry) return false;
    entry.lane.leased.remove(entry);
    entry.leaseUntil = now + leaseMs;
    entry.lane.leased.add(entry, entry.leaseUntil);
    this.#refresh(entry.lane);
    return true;
  }

  async ack(claim: Claim): Promise<boolean> {
    const entry = this.#held(claim);
    if (!entry) return false;
    this.#entries.delete(entry.deliveryId);
    entry.lane.leased.remove(entry);
    this.#refresh(entry.lane);
    return true;
  }

  async reschedule(claim: Claim, runAt: number): Promise<boolean> {
    const entry = this.#held(claim);
    if (!entry) return false;
    entry.lane.leased.remove(entry);
    entry.claimId = null;
    entry.runAt = runAt;
    entry.lane.ready.add(entry, runAt);
    this.#refresh(entry.lane);
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

  /**
   * Claims the lane's earliest claimable entry: its first ready one, or a lease
   * that ended before that (always the lease when `takeOverOnly`). The caller
   * places the lane afterwards.
   */
  #grant(lane: AgencyLane, leaseMs: number, now: number, takeOverOnly: boolean): Claim {
    const takeOver = takeOverOnly || lane.leased.firstTime() < lane.ready.firstTime();
    const from = takeOver ? lane.leased : lane.ready;
    const entry = from.first() as QueuedEntry;
    from.remove(entry);
    entry.claimId = nextClaimId();
    entry.leaseUntil = now + leaseMs;
    lane.leased.add(entry, entry.leaseUntil);
    return {
      deliveryId: entry.deliveryId,
      agencyId: lane.agencyId,
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

  #laneOf(agencyId: string): AgencyLane {
    let lane = this.#lanes.get(agencyId);
    if (!lane) {
      lane = {
        agencyId,
        ready: new Timeline(),
        leased: new Timeline(),
        heapIndex: -1,
        rotationPrev: null,
        rotationNext: null,
        inRotation: false,
      };
      this.#lanes.set(agencyId, lane);
    }
    return lane;
  }

  /** Takes the entry out of whichever timeline its claim state puts it in; the caller refreshes the lane. */
  #detach(entry: QueuedEntry): void {
    if (entry.claimId === null) entry.lane.ready.remove(entry);
    else entry.lane.leased.remove(entry);
  }

  /**
   * Re-keys the lane after its entries changed, or drops it once empty. The heap
   * ignores an unchanged key, so a change behind the lane's first entry costs
   * nothing. A lane in the rotation keeps its turn; the next claim that reaches
   * it sends it back to the heap if nothing in it is claimable by then.
   */
  #refresh(lane: AgencyLane): void {
    if (lane.ready.size === 0 && lane.leased.size === 0) {
      this.#schedule.remove(lane);
      this.#rotation.remove(lane);
      this.#lanes.delete(lane.agencyId);
    } else if (lane.inRotation) {
      return;
    } else if (lane.heapIndex < 0) {
      this.#schedule.push(lane, laneTime(lane));
    } else {
      this.#schedule.update(lane, laneTime(lane));
    }
  }

  /** Ms until the earliest entry becomes claimable; Infinity when none is pending in the future. */
  #msUntilNextDue(): number {
    const delay = this.#schedule.peekKey() - this.#clock();
    return delay > 0 ? delay : Number.POSITIVE_INFINITY;
  }

  #wakeWaiters(): void {
    if (this.#waiters.size === 0) return;
    for (const wake of [...this.#waiters]) wake();
  }
}

/** When the lane's earliest entry can be claimed: a ready entry's `runAt` or a lease's end. */
function laneTime(lane: AgencyLane): number {
  return Math.min(lane.ready.firstTime(), lane.leased.firstTime());
}

/** A delay setTimeout honours: non-negative, finite, at most its 32-bit maximum. */
function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}
