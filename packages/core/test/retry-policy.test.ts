import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../src/delivery/attempt-outcome';
import {
  DEFAULT_RETRY_POLICY,
  type RetryOptions,
  resolveRetryPolicy,
  retryDelayMs,
  scheduledDelayMs,
} from '../src/delivery/retry-policy';
import { InvalidOptionError } from '../src/errors';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function failed(statusCode: number | null, retryAfterMs: number | null = null): AttemptOutcome {
  return {
    ok: false,
    statusCode,
    errorKind: statusCode === null ? 'timeout' : 'http_status',
    errorMessage: statusCode === null ? 'Timed out' : `HTTP ${statusCode}`,
    durationMs: 12,
    responseExcerpt: null,
    retryAfterMs,
  };
}

const always = (value: number) => () => value;

describe('DEFAULT_RETRY_POLICY', () => {
  it('is five attempts after 1 min, 10 min, 2 h and 12 h with ±20 % jitter and a 24 h Retry-After cap', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxAttempts: 5,
      schedule: [MINUTE, 10 * MINUTE, 2 * HOUR, 12 * HOUR],
      jitterRatio: 0.2,
      maxRetryAfterMs: 24 * HOUR,
    });
    expect(Object.isFrozen(DEFAULT_RETRY_POLICY)).toBe(true);
  });
});

describe('resolveRetryPolicy()', () => {
  it('returns the defaults when given nothing', () => {
    expect(resolveRetryPolicy()).toEqual(DEFAULT_RETRY_POLICY);
  });

  it('overrides only the options given and copies the schedule', () => {
    const schedule = [1_000, 5_000];
    const policy = resolveRetryPolicy({ maxAttempts: 3, schedule });
    schedule.push(9);
    expect(policy).toEqual({
      maxAttempts: 3,
      schedule: [1_000, 5_000],
      jitterRatio: 0.2,
      maxRetryAfterMs: 24 * HOUR,
    });
  });

  it.each([
    ['maxAttempts', { maxAttempts: 1 }],
    ['maxAttempts', { maxAttempts: 100 }],
    ['schedule', { schedule: [0] }],
    ['jitterRatio', { jitterRatio: 0 }],
    ['jitterRatio', { jitterRatio: 1 }],
    ['maxRetryAfterMs', { maxRetryAfterMs: 0 }],
  ])('accepts the boundary value of %s in %j', (_field, options: RetryOptions) => {
    expect(() => resolveRetryPolicy(options)).not.toThrow();
  });

  it.each([
    [{ maxAttempts: 0 }, 'maxAttempts'],
    [{ maxAttempts: 101 }, 'maxAttempts'],
    [{ maxAttempts: 2.5 }, 'maxAttempts'],
    [{ maxAttempts: Number.NaN }, 'maxAttempts'],
    [{ schedule: [] }, 'schedule'],
    [{ schedule: [1_000, -1] }, 'schedule.1'],
    [{ schedule: [Number.POSITIVE_INFINITY] }, 'schedule.0'],
    [{ schedule: [Number.NaN] }, 'schedule.0'],
    [{ jitterRatio: -0.1 }, 'jitterRatio'],
    [{ jitterRatio: 1.5 }, 'jitterRatio'],
    [{ maxRetryAfterMs: -1 }, 'maxRetryAfterMs'],
  ])('refuses %j, naming %s', (options: RetryOptions, path) => {
    let error: unknown;
    try {
      resolveRetryPolicy(options);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'invalid_option', option: `retry.${path}` });
    expect((error as Error).message).toMatch(/^@svc\/webhooks-core: Invalid retry option/);
  });
});

describe('scheduledDelayMs()', () => {
  it.each([
    [1, MINUTE],
    [2, 10 * MINUTE],
    [3, 2 * HOUR],
    [4, 12 * HOUR],
    [5, 12 * HOUR],
    [9, 12 * HOUR],
    [0, MINUTE],
  ])('after attempt %i waits %i ms (the last entry repeats)', (attempt, expected) => {
    expect(scheduledDelayMs(attempt, DEFAULT_RETRY_POLICY)).toBe(expected);
  });
});

describe('retryDelayMs()', () => {
  it.each([
    [1, 0, 48_000],
    [1, 0.5, MINUTE],
    [1, 1, 72_000],
    [2, 0, 480_000],
    [2, 0.5, 600_000],
    [2, 1, 720_000],
    [3, 0, 5_760_000],
    [3, 1, 8_640_000],
    [4, 0, 34_560_000],
    [4, 1, 51_840_000],
    [6, 0.5, 12 * HOUR],
    [1, 0.25, 54_000],
  ])('after attempt %i with random %d waits %i ms', (attempt, random, expected) => {
    expect(retryDelayMs(attempt, failed(500), DEFAULT_RETRY_POLICY, always(random))).toBe(expected);
  });

  it.each([
    ['429 asking for longer than the schedule', failed(429, HOUR), 1, HOUR],
    ['503 asking for longer than the schedule', failed(503, 30 * MINUTE), 2, 30 * MINUTE],
    ['429 asking for less than the schedule', failed(429, 1_000), 1, MINUTE],
    ['429 with Retry-After 0', failed(429, 0), 1, MINUTE],
    ['503 asking for 3 days (capped at 24 h)', failed(503, 72 * HOUR), 1, 24 * HOUR],
    ['500 carrying a Retry-After (ignored)', failed(500, HOUR), 1, MINUTE],
    ['429 without Retry-After', failed(429, null), 1, MINUTE],
    ['timeout', failed(null, null), 3, 2 * HOUR],
  ])('%s waits %i ms after attempt %i', (_label, outcome, attempt, expected) => {
    expect(
      retryDelayMs(attempt as number, outcome as AttemptOutcome, DEFAULT_RETRY_POLICY, always(0.5)),
    ).toBe(expected);
  });

  it('never goes below Retry-After, even at the low end of the jitter', () => {
    expect(retryDelayMs(1, failed(429, 70_000), DEFAULT_RETRY_POLICY, always(0))).toBe(70_000);
  });

  it('applies the policy cap on Retry-After', () => {
    const policy = resolveRetryPolicy({ maxRetryAfterMs: 5 * MINUTE });
    expect(retryDelayMs(1, failed(429, HOUR), policy, always(0.5))).toBe(5 * MINUTE);
  });

  it('does not jitter when jitterRatio is 0', () => {
    const policy = resolveRetryPolicy({ jitterRatio: 0, schedule: [1_000] });
    expect([0, 0.3, 1].map((r) => retryDelayMs(1, failed(500), policy, always(r)))).toEqual([
      1_000, 1_000, 1_000,
    ]);
  });

  it.each([Number.NaN, -3, 7])('treats a broken random source (%d) as a value in [0, 1]', (value) => {
    const delay = retryDelayMs(1, failed(500), DEFAULT_RETRY_POLICY, always(value));
    expect(delay).toBeGreaterThanOrEqual(48_000);
    expect(delay).toBeLessThanOrEqual(72_000);
  });

  it('returns whole milliseconds', () => {
    const policy = resolveRetryPolicy({ schedule: [1_001] });
    expect(Number.isInteger(retryDelayMs(1, failed(500), policy, always(0.37)))).toBe(true);
  });
});
