import { withinDeadline } from '../deadline';

/**
 * Whether `promise` settles within `ms`. Used only where a behaviour is "resolves
 * promptly" (waitForWork); the bound is generous, so a pass never waits for it and
 * a failure reports instead of hanging until the test timeout.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return (await withinDeadline(promise, ms)).kind === 'done';
}
