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
 * or per idle wait.
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
): Promise<DeadlineResult<T>> {
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
  return new Promise<DeadlineResult<T>>((resolve, reject) => {
    const end = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      end();
      resolve({ kind: 'aborted' });
    };
    const timer = setTimeout(
      () => {
        end();
        resolve({ kind: 'timed_out' });
      },
      Math.max(0, ms),
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
