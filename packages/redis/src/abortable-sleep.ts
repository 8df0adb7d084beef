/** Resolves after `ms`, or at once when `signal` aborts. Never rejects. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
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

/**
 * `work`'s result, or `undefined` once `ms` have passed or `signal` aborted,
 * whichever is first. A Redis command issued while the server is unreachable
 * waits in ioredis' offline queue; this keeps such a wait inside its time budget.
 * (A plain timer rather than an AbortController: aborting one builds a
 * DOMException with a stack trace, too costly for every idle wait.)
 */
export function withinTime<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | undefined> {
  if (signal?.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const finish = (value: T | undefined): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', giveUp);
      resolve(value);
    };
    const giveUp = (): void => finish(undefined);
    const timer = setTimeout(giveUp, Math.max(0, ms));
    signal?.addEventListener('abort', giveUp, { once: true });
    work.then(finish, giveUp);
  });
}
