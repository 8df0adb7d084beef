/**
 * Reads `read` every `intervalMs` until `done` accepts a reading or `limitMs`
 * has passed since the first; resolves with the last reading and the time waited.
 */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  limitMs: number,
  intervalMs = 20,
): Promise<{ value: T; waitedMs: number }> {
  const started = performance.now();
  let value = await read();
  while (!done(value) && performance.now() - started < limitMs) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    value = await read();
  }
  return { value, waitedMs: performance.now() - started };
}
