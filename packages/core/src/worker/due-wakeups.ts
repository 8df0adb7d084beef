import { lowerBound } from '../sorted-array';

/**
 * Wakes the worker's claim loop when entries it put back in the queue for later
 * fall due: entries given back because their agency was saturated, and claims
 * deferred while the agency's breaker is open. No queue announces an entry
 * rescheduled for later, and the worker's outstanding `waitForWork` may have been
 * planned before it existed, so without this the entry waits out the poll interval.
 *
 * Due times are the service clock's. A timer can fire a millisecond before
 * `Date.now()` reaches the time it was set for; a claim made then finds the entry
 * not due yet and the worker sleeps past it. So a timer that fires early is set
 * again for the rest, and the loop is woken only once the clock says due.
 */
export class DueWakeups {
  /** Pending due times, ascending, each once. */
  readonly #times: number[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** The due time #timer is set for (Infinity: none). */
  #armedFor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly clock: () => number,
    private readonly wake: () => void,
  ) {}

  /** Wakes the loop once the clock reaches `dueAt`. */
  at(dueAt: number): void {
    const times = this.#times;
    const low = lowerBound(times, dueAt);
    if (times[low] === dueAt) return;
    times.splice(low, 0, dueAt);
    if (dueAt < this.#armedFor) this.#arm();
  }

  /** Forgets every pending time (the worker stopped). */
  clear(): void {
    this.#times.length = 0;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armedFor = Number.POSITIVE_INFINITY;
  }

  #arm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const next = this.#times[0];
    this.#armedFor = next ?? Number.POSITIVE_INFINITY;
    if (next === undefined) return;
    this.#timer = setTimeout(() => this.#fire(), Math.max(1, next - this.clock()));
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = null;
    const now = this.clock();
    let due = 0;
    while (due < this.#times.length && (this.#times[due] as number) <= now) due += 1;
    this.#times.splice(0, due);
    if (due > 0) this.wake();
    this.#arm();
  }
}
