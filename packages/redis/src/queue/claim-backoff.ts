/** First pause after a claim found Redis unavailable, doubled on each further failure up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 1_000;

/**
 * Claims through a failover, quietly. While Redis is unavailable for a moment
 * (a failover takes a few seconds), a failed claim answers "nothing to claim"
 * instead of an error, and for a pause that doubles from 50 ms to 1 s claims
 * answer the same without asking Redis (and waits last the pause, within their
 * timeout): no error reported for each retry, no busy loop against Redis, and
 * claims resume within a second of Redis coming back. Only when Redis has
 * stayed unavailable for `graceMs` do claims fail again (and the worker reports
 * them, once per wait), since then it is an outage someone must look at.
 */
export class ClaimBackoff {
  #since: number | null = null;
  #pause = 0;
  #until = 0;

  constructor(private readonly graceMs: number) {}

  /** A claim failed as unavailable: true while the failure should stay quiet. */
  failed(): boolean {
    const now = performance.now();
    this.#since ??= now;
    this.#pause = Math.min(MAX_PAUSE_MS, this.#pause === 0 ? FIRST_PAUSE_MS : this.#pause * 2);
    this.#until = now + this.#pause;
    return now - this.#since < this.graceMs;
  }

  /** A claim went through: Redis is back. */
  succeeded(): void {
    this.#since = null;
    this.#pause = 0;
    this.#until = 0;
  }

  /** Ms the next wait must last at least (0: none). */
  pauseLeft(): number {
    return Math.max(0, this.#until - performance.now());
  }
}
