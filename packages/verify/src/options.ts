import { DEFAULT_TOLERANCE_MS } from './constants';

/** Options of every verify function. */
export interface VerifyWebhookOptions {
  /**
   * How far `t` may lie from `now`, in milliseconds, in the past or the future. `Infinity` turns the
   * check off (only for replaying stored fixtures in tests).
   * @default 300_000 (5 minutes, the spec's recommendation)
   * @example { toleranceMs: 600_000 } // where clocks drift
   */
  toleranceMs?: number;
  /**
   * The current time in epoch milliseconds.
   * @default Date.now()
   * @example { now: Date.parse('2025-01-01T00:00:00Z') }
   */
  now?: number;
}

/** Options with their defaults applied and checked. */
export interface ResolvedVerifyOptions {
  toleranceMs: number;
  now: number;
}

/**
 * Applies defaults and rejects unusable values with a `TypeError`: a bad option is a bug in the
 * receiver's code, not a bad delivery, so it must not read as a 401.
 */
export function resolveVerifyOptions(options: VerifyWebhookOptions | undefined): ResolvedVerifyOptions {
  const toleranceMs = options?.toleranceMs ?? DEFAULT_TOLERANCE_MS;
  const now = options?.now ?? Date.now();
  if (typeof toleranceMs !== 'number' || Number.isNaN(toleranceMs) || toleranceMs < 0) {
    throw new TypeError(`toleranceMs must be a number of milliseconds >= 0, got ${String(toleranceMs)}`);
  }
  if (typeof now !== 'number' || !Number.isFinite(now)) {
    throw new TypeError(`now must be a finite number of epoch milliseconds, got ${String(now)}`);
  }
  return { toleranceMs, now };
}
