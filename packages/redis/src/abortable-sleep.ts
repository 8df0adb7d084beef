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
 */
export async function withinTime<T>(
  work: Promise<T>,
  ms: number,
  signal?: AbortSignal,
): Promise<T | undefined> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    return await Promise.race([work, abortableSleep(ms, controller.signal).then(() => undefined)]);
  } finally {
    controller.abort();
    signal?.removeEventListener('abort', stop);
  }
}
