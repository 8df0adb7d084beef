/**
 * Whether `promise` settles within `ms`. Used only where a behaviour is "resolves
 * promptly" (waitForWork); the bound is generous, so a pass never waits for it and
 * a failure reports instead of hanging until the test timeout. The timer is
 * always cleared.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms` of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
