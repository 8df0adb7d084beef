import type { AttemptRecord } from '../delivery/attempt-record';

/**
 * The memory store's attempt history of one delivery, kept on the stored record
 * itself: whatever deletes the record (a purge) deletes its history, with no
 * index of its own to keep in step. Null until the first attempt, so a delivery
 * delivered at the first try costs one array, and one never attempted none.
 */
export interface AttemptLog {
  attempts: AttemptRecord[] | null;
}

/**
 * Appends a detached copy of `attempt`, unless the log holds that attempt number
 * already (keyed by number like the other stores; only a counter set back by hand
 * can repeat one). Numbers only grow, so the last entry is usually all it checks.
 */
export function appendAttempt(log: AttemptLog, attempt: AttemptRecord): void {
  const attempts = log.attempts;
  if (attempts === null) {
    log.attempts = [copyAttempt(attempt)];
    return;
  }
  const last = attempts[attempts.length - 1];
  if (last && last.attempt >= attempt.attempt && attempts.some((kept) => kept.attempt === attempt.attempt)) {
    return;
  }
  attempts.push(copyAttempt(attempt));
  // A number below the last one (after a counter was set back) goes to its place: oldest first by number.
  if (last && last.attempt > attempt.attempt) attempts.sort((a, b) => a.attempt - b.attempt);
}

/** Detached copies of the log's attempts, oldest first; empty for no log. */
export function readAttempts(log: AttemptLog | undefined): AttemptRecord[] {
  return log?.attempts ? log.attempts.map(copyAttempt) : [];
}

/** A copy holding exactly an attempt's fields: extra properties are not stored, and results are detached. */
function copyAttempt(attempt: AttemptRecord): AttemptRecord {
  return {
    attempt: attempt.attempt,
    trigger: attempt.trigger,
    startedAt: attempt.startedAt,
    durationMs: attempt.durationMs,
    responseCode: attempt.responseCode,
    errorKind: attempt.errorKind,
    errorMessage: attempt.errorMessage,
    responseExcerpt: attempt.responseExcerpt,
  };
}
