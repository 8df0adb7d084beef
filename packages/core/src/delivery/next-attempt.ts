/**
 * When a pending delivery's next attempt will really be made, as the API shows
 * it: its own schedule (`nextRetryAt`), held to the end of the breaker's pause
 * when one holds it, and never earlier than `now`: a due delivery waiting for a
 * free slot of its agency, or for the next claim, goes as soon as it gets one.
 */
export function nextAttemptShown(
  nextRetryAt: number | null,
  pausedUntil: number | null,
  now: number,
): number {
  return Math.max(nextRetryAt ?? now, pausedUntil ?? now, now);
}
