/**
 * What {@link withinDeadline} saw first: the work's value, the deadline, or the
 * abort signal.
 */
export type DeadlineResult<T> = { kind: 'done'; value: T } | { kind: 'timed_out' | 'aborted' };

/**
 * Waits for `work` at most `ms` and until `signal` aborts, whichever comes
 * first; `work` keeps running unobserved past either. A rejection of `work`
 * is passed on. The timer and the abort listener are always removed.
 *
 * A plain timer rather than an AbortController: aborting one builds a
 * DOMException with a stack trace, too costly on paths that run per attempt
 * or per idle wait. With `maxLagCreditMs`, the wait is for someone else's
 * answer and event-loop lag is given back, up to that much
 * (the lag-tolerant timer below).
 *
 * @example
 * ```ts
 * const result = await withinDeadline(resolveHost(name), 5_000);
 * if (result.kind !== 'done') throw new Error('no answer in time');
 * ```
 */
export function withinDeadline<T>(
  work: Promise<T>,
  ms: number,
  signal?: AbortSignal,
  maxLagCreditMs = 0,
): Promise<DeadlineResult<T>> {
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
  return new Promise<DeadlineResult<T>>((resolve, reject) => {
    const end = (): void => {
      timer.stop();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      end();
      resolve({ kind: 'aborted' });
    };
    const timer = startLagTolerantTimer(
      ms,
      () => {
        end();
        resolve({ kind: 'timed_out' });
      },
      maxLagCreditMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        end();
        resolve({ kind: 'done', value });
      },
      (error: unknown) => {
        end();
        reject(error);
      },
    );
  });
}

/**
 * Resolves after `ms`, or at once when `signal` aborts. Never rejects.
 *
 * @example
 * ```ts
 * await sleep(pollIntervalMs, stopSignal);
 * ```
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A timer started by {@link startLagTolerantTimer}. */
export interface LagTolerantTimer {
  /** Cancels it; `onExpire` will not be called. Idempotent. */
  stop(): void;
  /** Event-loop lag given back so far, in ms. */
  readonly lagCreditedMs: number;
}

/**
 * A timer that fires this much late was held up by the process (a blocked or
 * starved event loop), not by timer granularity, and gives the lateness back.
 */
export const LAG_TOLERANCE_MS = 20;

/**
 * The lag to give back for a timer that fired `lateMs` late, having given back
 * `creditedMs` of at most `maxCreditMs` already: 0 within {@link LAG_TOLERANCE_MS}
 * (timer granularity, not a held-up loop) or once the allowance is spent.
 */
export function lagCreditMs(lateMs: number, creditedMs: number, maxCreditMs: number): number {
  return lateMs > LAG_TOLERANCE_MS ? Math.max(0, Math.min(lateMs, maxCreditMs - creditedMs)) : 0;
}

/**
 * Calls `onExpire` once `ms` have passed while the event loop was free to notice
 * anything else: a deadline for someone else's answer that our own process's lag
 * never shortens.
 *
 * A timer that fires late (by more than {@link LAG_TOLERANCE_MS}, measured on the
 * monotonic clock) was held up by the loop: whatever arrived meanwhile is still
 * unread, since a turn of the loop runs its timers before it polls for I/O. So the
 * lateness is given back and the timer re-armed for it, up to `maxLagCreditMs` in
 * all. An expiry that stands is still deferred to the end of the turn
 * (`setImmediate`, after the poll), so an answer already received is read first.
 *
 * @param ms - the budget, in ms.
 * @param maxLagCreditMs - most lag given back over the timer's life, so a loop
 *   that is late forever still ends the wait.
 * @example
 * ```ts
 * const timer = startLagTolerantTimer(10_000, () => request.abort(), 30_000);
 * response.once('end', () => timer.stop());
 * ```
 */
export function startLagTolerantTimer(
  ms: number,
  onExpire: () => void,
  maxLagCreditMs: number,
): LagTolerantTimer {
  let credited = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const arm = (delay: number): void => {
    const dueAt = performance.now() + delay;
    timer = setTimeout(() => fire(dueAt), delay);
  };
  const fire = (dueAt: number): void => {
    const credit = lagCreditMs(performance.now() - dueAt, credited, maxLagCreditMs);
    if (credit > 0) {
      credited += credit;
      arm(credit);
      return;
    }
    immediate = setImmediate(() => {
      if (stopped) return;
      stopped = true;
      onExpire();
    });
  };
  arm(Math.max(0, ms));
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      clearImmediate(immediate);
    },
    get lagCreditedMs() {
      return credited;
    },
  };
}
