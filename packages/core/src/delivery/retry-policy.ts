import { InvalidOptionError, type ValidationIssue } from '../errors';
import type { AttemptOutcome } from './attempt-outcome';

/** How many attempts a delivery gets and how long to wait between them. */
export interface RetryPolicy {
  /** Attempts a new delivery gets, the first included (1..100). */
  maxAttempts: number;
  /**
   * Delay in ms after attempt n, at index n − 1. When a delivery makes more
   * attempts than the schedule has entries (a replay, a larger `maxAttempts`),
   * the last entry is used again.
   */
  schedule: readonly number[];
  /** Each delay is spread uniformly over ±(ratio × delay), so retries of many deliveries do not arrive in bursts. */
  jitterRatio: number;
  /** Upper bound on a receiver's `Retry-After`, in ms. */
  maxRetryAfterMs: number;
}

/**
 * The default policy: five attempts, retried after 1 min, 10 min, 2 h and 12 h
 * (±20 %). About 14 hours in all, so an ordinary outage of a receiver is ridden
 * out; `Retry-After` is honoured up to 24 h.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 5,
  schedule: Object.freeze([60_000, 600_000, 7_200_000, 43_200_000]),
  jitterRatio: 0.2,
  maxRetryAfterMs: 86_400_000,
});

/** Attempts and backoff: the `retry` option of {@link createWebhookService}. */
export interface RetryOptions {
  /**
   * Attempts per delivery, the first included; an integer from 1 to 100.
   * @default 5
   */
  maxAttempts?: number;
  /**
   * Delays in ms after attempts 1, 2, …; non-empty, each finite and ≥ 0. The last
   * entry repeats for later attempts.
   * @default [60_000, 600_000, 7_200_000, 43_200_000]
   * @example [1_000, 5_000, 30_000]
   */
  schedule?: number[];
  /**
   * Jitter as a share of each delay, from 0 (none) to 1.
   * @default 0.2
   */
  jitterRatio?: number;
  /**
   * Cap on a receiver's `Retry-After`, in ms (≥ 0).
   * @default 86_400_000 (24 h)
   */
  maxRetryAfterMs?: number;
}

const MAX_ATTEMPTS_LIMIT = 100;

function isNonNegativeFinite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function retryOptionIssues(options: RetryOptions): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { maxAttempts, schedule, jitterRatio, maxRetryAfterMs } = options;
  if (
    maxAttempts !== undefined &&
    !(Number.isInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= MAX_ATTEMPTS_LIMIT)
  ) {
    issues.push({ path: 'maxAttempts', message: `Expected an integer from 1 to ${MAX_ATTEMPTS_LIMIT}` });
  }
  if (schedule !== undefined) {
    if (!Array.isArray(schedule) || schedule.length === 0) {
      issues.push({ path: 'schedule', message: 'Expected a non-empty array of delays in ms' });
    } else {
      schedule.forEach((delay, index) => {
        if (!isNonNegativeFinite(delay)) {
          issues.push({ path: `schedule.${index}`, message: 'Expected a finite number of ms ≥ 0' });
        }
      });
    }
  }
  if (jitterRatio !== undefined && !(isNonNegativeFinite(jitterRatio) && jitterRatio <= 1)) {
    issues.push({ path: 'jitterRatio', message: 'Expected a number from 0 to 1' });
  }
  if (maxRetryAfterMs !== undefined && !isNonNegativeFinite(maxRetryAfterMs)) {
    issues.push({ path: 'maxRetryAfterMs', message: 'Expected a finite number of ms ≥ 0' });
  }
  return issues;
}

/**
 * The policy for the given options, defaults filled in from {@link DEFAULT_RETRY_POLICY}.
 *
 * @throws {@link InvalidOptionError} (`invalid_option`) naming the first bad option (`retry.maxAttempts`, …).
 *
 * @example
 * ```ts
 * resolveRetryPolicy({ maxAttempts: 3, schedule: [1_000, 10_000] });
 * ```
 */
export function resolveRetryPolicy(options: RetryOptions = {}): RetryPolicy {
  const issues = retryOptionIssues(options);
  const first = issues[0];
  if (first) {
    throw new InvalidOptionError(
      '@svc/webhooks-core',
      `retry.${first.path}`,
      `Invalid retry option "${first.path}": ${first.message}.`,
    );
  }
  return Object.freeze({
    maxAttempts: options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
    schedule: Object.freeze([...(options.schedule ?? DEFAULT_RETRY_POLICY.schedule)]),
    jitterRatio: options.jitterRatio ?? DEFAULT_RETRY_POLICY.jitterRatio,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
  });
}

/** The scheduled delay after attempt `attemptJustMade` (1-based), before jitter. */
export function scheduledDelayMs(attemptJustMade: number, policy: RetryPolicy): number {
  const { schedule } = policy;
  const index = Math.min(Math.max(Math.floor(attemptJustMade), 1), schedule.length) - 1;
  return schedule[index] ?? 0;
}

/** The receiver's `Retry-After`, when it applies (429 and 503 only), capped; else null. */
function retryAfterFloorMs(outcome: AttemptOutcome, policy: RetryPolicy): number | null {
  const { statusCode, retryAfterMs } = outcome;
  if (statusCode !== 429 && statusCode !== 503) return null;
  if (retryAfterMs === null || !Number.isFinite(retryAfterMs) || retryAfterMs < 0) return null;
  return Math.min(retryAfterMs, policy.maxRetryAfterMs);
}

/**
 * How long to wait, in whole ms, before the attempt after `attemptJustMade`.
 *
 * The schedule's delay is spread by ±`jitterRatio` with `random` (0 → the low end,
 * 0.5 → the exact delay, 1 → the high end). A `Retry-After` on a 429 or 503,
 * capped at `maxRetryAfterMs`, is a floor: the result is the larger of the two.
 * Taking the larger means a receiver can ask us to back off for longer, but a
 * short `Retry-After` never pulls a retry earlier than the schedule, which would
 * spend the few attempts a delivery has within moments of an outage.
 *
 * @param random - a source of numbers in [0, 1); inject a fixed one in tests.
 */
export function retryDelayMs(
  attemptJustMade: number,
  outcome: AttemptOutcome,
  policy: RetryPolicy,
  random: () => number,
): number {
  const base = scheduledDelayMs(attemptJustMade, policy);
  const drawn = random();
  // A broken source (NaN, out of range) must not produce a NaN or negative delay.
  const unit = Number.isFinite(drawn) ? Math.min(Math.max(drawn, 0), 1) : 0.5;
  const jittered = Math.round(base * (1 + policy.jitterRatio * (2 * unit - 1)));
  const floor = retryAfterFloorMs(outcome, policy);
  return floor === null ? jittered : Math.max(jittered, Math.ceil(floor));
}
