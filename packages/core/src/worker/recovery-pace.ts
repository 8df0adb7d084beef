import { sleep } from '../deadline';
import type { RecoveryWindow } from '../service/bulk-recovery';
import type { Engine } from '../service/engine';

/**
 * How often a walk that is far enough ahead looks again whether its agency caught up, in ms: well
 * within the time a fast agency (a few thousand deliveries a second) takes to drain the lead.
 */
const CATCH_UP_POLL_MS = 20;

/**
 * Keeps a bulk recovery's walk a few pages ahead of its agency's deliveries
 * instead of queueing the whole window as fast as it can read it.
 *
 * The agency delivers within its in-flight limit whatever the walk does, so
 * replays queued far ahead only wait; writing them all at once concentrates the
 * walk's reads and writes at the recovery's start, where they slow every other
 * agency on the same store, and fills the agency's queue with a window's worth
 * of entries that its new events then queue behind. So before each page the walk
 * counts the window's pending deliveries (`store.countDeliveries`, which returns
 * a number, no records) and waits while the replays not yet delivered are `lead`
 * or more.
 *
 * The window may hold pending deliveries of its own (retries in backoff, which
 * a recovery does not replay); the lowest count seen is taken as theirs, so they
 * never hold the walk back. A wait ends after `maxWaitMs` whatever the count
 * says (an agency whose breaker is open delivers nothing for a while), so the
 * walk always moves on, and its lease stays well within reach. A store without
 * `countDeliveries` is not paced, nor is a walk over an in-process queue: it
 * shares no database with other processes, and an agency delivering from memory
 * drains any lead faster than the walk could look.
 */
export class RecoveryPace {
  /** The lowest pending count seen: what the window holds besides the walk's replays. */
  #floor: number | null = null;

  constructor(
    private readonly engine: Engine,
    private readonly window: RecoveryWindow,
    private readonly lead: number,
    private readonly maxWaitMs: number,
  ) {}

  /** The walk is paced by its agency (see the class). */
  get paced(): boolean {
    return this.engine.store.countDeliveries !== undefined && !this.engine.queue.capabilities.inProcess;
  }

  /** Resolves once fewer than `lead` replays wait, after `maxWaitMs`, or when `signal` aborts. */
  async waitForRoom(signal: AbortSignal): Promise<void> {
    const { store } = this.engine;
    if (!this.paced || !store.countDeliveries) return;
    const giveUpAt = performance.now() + this.maxWaitMs;
    for (;;) {
      const pending = await store.countDeliveries(this.window.agencyId, {
        status: 'pending',
        createdSince: this.window.since,
        createdBefore: this.window.until,
      });
      this.#floor = Math.min(this.#floor ?? pending, pending);
      if (pending - this.#floor < this.lead) return;
      if (signal.aborted || performance.now() >= giveUpAt) return;
      await sleep(CATCH_UP_POLL_MS, signal);
    }
  }
}
