import type { QueueEntry } from '../adapters/queue';
import { sleep } from '../deadline';
import type { DeliveryRecord } from '../delivery/delivery';
import { cursorEventType, type RecoveryRecord, type RecoveryUpdate, walkCount } from '../delivery/recovery';
import { listWindowPage } from '../service/bulk-recovery';
import { queueEntryOf, writeReplay } from '../service/delivery-access';
import type { Engine } from '../service/engine';
import { positiveIntegerOption } from '../validation';
import { RecoveryPace } from './recovery-pace';

/*
 * Walks the stored bulk recoveries (service/bulk-recovery.ts): every worker
 * process looks for running recoveries nobody holds, takes one under a lease
 * (a compare-and-set on the record), and replays its failed deliveries a page
 * at a time, writing its position after each page. A worker that dies leaves
 * its lease to expire; the next one resumes from the last page written.
 *
 * Exactly once: before replaying a page the walker writes the page's end
 * (`pageEndId`). A worker that takes over a recovery with a page open does not
 * replay that page blindly: a delivery the dead worker replayed is pending with
 * a `recovery` trigger, or has a `recovery` attempt in its history since the
 * recovery began, and is counted instead of replayed again.
 *
 * A store with `replayRecoveryPage` opens a page and replays it in one step (one
 * script on Redis, one statement on PostgreSQL, each sending back only ids): the
 * same page, opened before any replay of it is visible, so a takeover finds it
 * exactly as above.
 */

/** The `bulkRecovery` option of {@link createWorker}. */
export interface RecoveryWalkerOptions {
  /**
   * How often the worker looks for running recoveries that no worker holds (one
   * started in this process is taken at once; one whose worker died, after its lease).
   * @default 1000
   */
  pollIntervalMs?: number;
  /**
   * Failed deliveries replayed per page; the position is written after each page.
   * @default 100
   */
  pageSize?: number;
  /**
   * Recoveries (of different agencies) this worker walks at once.
   * @default 4
   */
  maxWalks?: number;
}

/** Resolved walker settings. */
export interface RecoveryWalkerSettings {
  pollIntervalMs: number;
  pageSize: number;
  maxWalks: number;
}

/** Validates the option; `false` turns the walker off (null). */
export function resolveRecoveryWalkerOptions(
  options: RecoveryWalkerOptions | false | undefined,
): RecoveryWalkerSettings | null {
  if (options === false) return null;
  return {
    pollIntervalMs: positiveIntegerOption('bulkRecovery.pollIntervalMs', options?.pollIntervalMs, 1000),
    pageSize: positiveIntegerOption('bulkRecovery.pageSize', options?.pageSize, 100),
    maxWalks: positiveIntegerOption('bulkRecovery.maxWalks', options?.maxWalks, 4),
  };
}

/**
 * Replay writes of one page in flight at once. Stores batch concurrent compare-and-sets (one statement
 * on PostgreSQL, one script on Redis). Fewer at once slowed the recovery, more slowed the agencies
 * delivering beside it (Redis, recovery ÷ backlog and others' ratio: 0.85× and 0.92× with 8,
 * 0.93× and 0.89× with 100; about 0.9× each with 32).
 */
const REPLAYS_AT_ONCE = 32;
/** Running recoveries read per look. */
const SCAN_LIMIT = 64;
/**
 * Pages of replays a walk keeps queued ahead of its agency's deliveries (see RecoveryPace): at 100
 * per page, a quarter of a second of a fast agency's deliveries, read again every page.
 */
const LEAD_PAGES = 4;
/** Longest one wait for the agency to catch up, in ms; never more than a quarter of the lease. */
const MAX_CATCH_UP_WAIT_MS = 1_000;

/** Walks bulk recoveries for one worker. */
export class RecoveryWalker {
  readonly #engine: Engine;
  readonly #settings: RecoveryWalkerSettings;
  readonly #leaseMs: number;
  readonly #onError: (error: unknown) => void;
  #running = false;
  /** Aborted by stop(): ends the rest between pages at once. */
  #stopping = new AbortController();
  #timer: NodeJS.Timeout | null = null;
  #scan: Promise<void> | null = null;
  #scanAgain = false;
  readonly #walks = new Map<string, Promise<void>>();
  readonly #onStarted = (): void => this.#scanSoon();

  constructor(
    engine: Engine,
    settings: RecoveryWalkerSettings,
    leaseMs: number,
    onError: (error: unknown) => void,
  ) {
    this.#engine = engine;
    this.#settings = settings;
    this.#leaseMs = leaseMs;
    this.#onError = onError;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#stopping = new AbortController();
    this.#engine.recoveryListeners.add(this.#onStarted);
    this.#timer = setInterval(() => this.#scanSoon(), this.#settings.pollIntervalMs);
    this.#timer.unref();
    this.#scanSoon();
  }

  /** Stops looking; each walk finishes its page and gives its lease back, so another worker goes on at once. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#stopping.abort();
    this.#engine.recoveryListeners.delete(this.#onStarted);
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#scan;
    await Promise.all(this.#walks.values());
  }

  #scanSoon(): void {
    if (!this.#running) return;
    if (this.#scan) {
      this.#scanAgain = true;
      return;
    }
    this.#scan = this.#scanOnce()
      .catch(this.#onError)
      .finally(() => {
        this.#scan = null;
        if (this.#scanAgain) {
          this.#scanAgain = false;
          this.#scanSoon();
        }
      });
  }

  async #scanOnce(): Promise<void> {
    if (this.#walks.size >= this.#settings.maxWalks) return;
    const running = await this.#engine.store.listRunningRecoveries(SCAN_LIMIT);
    const now = this.#engine.clock();
    for (const recovery of running) {
      if (!this.#running || this.#walks.size >= this.#settings.maxWalks) return;
      if (this.#walks.has(recovery.id)) continue;
      if (recovery.leaseUntil !== null && recovery.leaseUntil > now) continue;
      const walk = this.#walk(recovery)
        .catch(this.#onError)
        .finally(() => {
          this.#walks.delete(recovery.id);
          // A slot freed: another recovery may be waiting for one.
          this.#scanSoon();
        });
      this.#walks.set(recovery.id, walk);
    }
  }

  async #walk(found: RecoveryRecord): Promise<void> {
    let record = await this.#write(found, { leaseUntil: this.#leaseEnd() });
    const pace = new RecoveryPace(
      this.#engine,
      found,
      LEAD_PAGES * this.#settings.pageSize,
      Math.min(MAX_CATCH_UP_WAIT_MS, this.#leaseMs / 4),
    );
    while (record && record.status === 'running') {
      if (!this.#running) {
        await this.#write(record, { leaseUntil: null });
        return;
      }
      if (record.pageEndId === null) await pace.waitForRoom(this.#stopping.signal);
      const started = performance.now();
      record = record.pageEndId === null ? await this.#nextPage(record) : await this.#resumePage(record);
      // A store that cannot count is not paced: half the time walking, half resting keeps the
      // replays well ahead of the agency and leaves the other agencies' deliveries their pace.
      if (record?.status === 'running' && !pace.paced) {
        await sleep(performance.now() - started, this.#stopping.signal);
      }
    }
  }

  /** Replays the next page of failed deliveries, or moves to the next event type, or completes. */
  async #nextPage(record: RecoveryRecord): Promise<RecoveryRecord | null> {
    if (this.#engine.store.replayRecoveryPage) return this.#nextPageInStore(record);
    const page = await listWindowPage(this.#engine, record, {
      eventType: cursorEventType(record),
      beforeId: record.cursorId,
      limit: this.#settings.pageSize,
      status: 'failed',
    });
    const last = page.at(-1);
    if (!last) return this.#endTypeWalk(record);
    // Written before the first replay: a worker that takes over finds the page open and re-examines it.
    const opened = await this.#write(record, { pageEndId: last.id, leaseUntil: this.#leaseEnd() });
    if (!opened) return null;
    const replayed = await this.#replayAll(page);
    return this.#closePage(opened, last.id, replayed);
  }

  /**
   * The same page where the store opens and replays it in one step (`replayRecoveryPage`):
   * no record travels to the worker, and what is left here is queueing the replays (a store
   * linked to its queue has queued them already) and closing the page.
   */
  async #nextPageInStore(record: RecoveryRecord): Promise<RecoveryRecord | null> {
    const now = this.#engine.clock();
    const replay = await this.#engine.store.replayRecoveryPage?.(record, {
      limit: this.#settings.pageSize,
      now,
      leaseUntil: now + this.#leaseMs,
    });
    if (!replay) return null;
    const endId = replay.recovery.pageEndId;
    if (endId === null) return this.#endTypeWalk(record);
    await this.#enqueue(
      replay.replayedIds.map((deliveryId) => ({ deliveryId, agencyId: record.agencyId, runAt: now })),
    );
    return this.#closePage(replay.recovery, endId, replay.replayedIds.length);
  }

  /** No failed delivery is left of the current event type: on to the next one, or the walk is complete. */
  #endTypeWalk(record: RecoveryRecord): Promise<RecoveryRecord | null> {
    if (record.cursorTypeIndex + 1 < walkCount(record)) {
      return this.#write(record, {
        cursorTypeIndex: record.cursorTypeIndex + 1,
        cursorId: null,
        leaseUntil: this.#leaseEnd(),
      });
    }
    return this.#write(record, {
      status: 'completed',
      completedAt: this.#engine.clock(),
      leaseUntil: null,
    });
  }

  /**
   * Finishes a page a worker opened and did not close (it died, or its store write
   * failed): each of the page's deliveries is counted when that worker replayed it,
   * replayed when it is still failed and was not, and skipped otherwise.
   */
  async #resumePage(record: RecoveryRecord): Promise<RecoveryRecord | null> {
    const endId = record.pageEndId as string;
    let counted = 0;
    let beforeId = record.cursorId;
    for (;;) {
      // Every status: a delivery the dead worker replayed is no longer failed.
      const rows = await listWindowPage(this.#engine, record, {
        eventType: cursorEventType(record),
        beforeId,
        limit: this.#settings.pageSize,
      });
      for (const row of rows) {
        if (row.id < endId) return this.#closePage(record, endId, counted);
        if (await this.#settleResumed(record, row)) counted += 1;
      }
      const last = rows.at(-1);
      if (!last || rows.length < this.#settings.pageSize) return this.#closePage(record, endId, counted);
      beforeId = last.id;
    }
  }

  async #settleResumed(record: RecoveryRecord, row: DeliveryRecord): Promise<boolean> {
    if (row.status === 'pending') {
      if (row.nextAttemptTrigger !== 'recovery') return false;
      // The dead worker may have died between its replay's write and its enqueue.
      await this.#enqueue([queueEntryOf(row)]);
      return true;
    }
    const attempts = await this.#engine.store.listAttempts(row.id);
    const replayedBefore = attempts.some(
      (attempt) => attempt.trigger === 'recovery' && attempt.startedAt >= record.createdAt,
    );
    if (replayedBefore) return true;
    if (row.status !== 'failed') return false;
    const saved = await writeReplay(this.#engine, row, 'recovery');
    if (saved) await this.#enqueue([queueEntryOf(saved)]);
    return saved !== null;
  }

  /**
   * Queues replayed deliveries. A queue with `enqueueMissing` takes them in one call and adds
   * only those without an entry; with plain `enqueue`, one that is queued already (a page being
   * taken over) may be attempted twice at worst, and the store's compare-and-set records one of
   * the two (at-least-once, as a lost entry's repair).
   */
  async #enqueue(entries: readonly QueueEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const { queue } = this.#engine;
    if (queue.enqueueMissing) await queue.enqueueMissing(entries);
    else for (const entry of entries) await queue.enqueue(entry);
  }

  /**
   * Replays the page's deliveries: the compare-and-sets a few at a time (stores batch concurrent
   * ones), then every replayed delivery queued in one call where the queue can (`enqueueMissing`).
   * Resolves with how many were replayed.
   */
  async #replayAll(page: readonly DeliveryRecord[]): Promise<number> {
    let next = 0;
    const replayed: DeliveryRecord[] = [];
    const lane = async (): Promise<void> => {
      while (next < page.length) {
        const delivery = page[next++] as DeliveryRecord;
        // Null: it changed since the page was read (a manual replay got there first): skipped.
        const saved = await writeReplay(this.#engine, delivery, 'recovery');
        if (saved) replayed.push(saved);
      }
    };
    await Promise.all(Array.from({ length: Math.min(REPLAYS_AT_ONCE, page.length) }, lane));
    await this.#enqueue(replayed.map(queueEntryOf));
    return replayed.length;
  }

  /**
   * Writes the page as done. When the write loses (the recovery was cancelled meanwhile),
   * the page's count is still added, and the walk ends. When another worker took the
   * recovery over (this one's lease ran out), it re-examines the page and counts it.
   */
  async #closePage(record: RecoveryRecord, endId: string, replayed: number): Promise<RecoveryRecord | null> {
    const done = (current: RecoveryRecord): RecoveryUpdate => ({
      cursorId: endId,
      pageEndId: null,
      replayed: current.replayed + replayed,
      leaseUntil: current.status === 'running' ? this.#leaseEnd() : null,
    });
    const closed = await this.#engine.store.updateRecovery(record.id, record.version, done(record));
    if (closed) return closed;
    for (;;) {
      const current = await this.#engine.store.getRecovery(record.id);
      if (current?.status !== 'cancelled' || current.pageEndId !== endId) return null;
      if (await this.#engine.store.updateRecovery(current.id, current.version, done(current))) return null;
    }
  }

  #write(record: RecoveryRecord, update: RecoveryUpdate): Promise<RecoveryRecord | null> {
    return this.#engine.store.updateRecovery(record.id, record.version, update);
  }

  #leaseEnd(): number {
    return this.#engine.clock() + this.#leaseMs;
  }
}
