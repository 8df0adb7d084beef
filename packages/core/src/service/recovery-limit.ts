import { type AgencyRateLimiter, createAgencyRateLimiter } from './agency-rate-limit';

/**
 * The per-agency limit on bulk recovery requests, dry runs and starts together:
 * the `recoveryLimit` option of {@link createWebhookService}.
 */
export interface RecoveryLimitOptions {
  /**
   * Bulk recovery requests (dry runs and starts together) an agency may make in a burst.
   * @default 5
   */
  max?: number;
  /**
   * Time in ms over which `max` requests are earned back (one every `perMs / max`).
   * @default 60_000
   */
  perMs?: number;
}

/** Takes one bulk recovery request (a dry run or a start) for an agency or throws `RateLimitedError`. */
export type RecoveryLimiter = AgencyRateLimiter;

/*
 * A dry run counts the window's failed deliveries (one count per event type,
 * up to 100 of them, or a walk of every matching record on a store that cannot
 * count), and a start counts the same and writes a recovery record. Both are
 * work a tenant can repeat at will, so both draw on one allowance. Five in a
 * burst covers a person's count, a recount or two after changing the window,
 * and the start; a script polling faster than one every 12 s is refused.
 */
export function createRecoveryLimiter(options: RecoveryLimitOptions | false | undefined): RecoveryLimiter {
  return createAgencyRateLimiter(
    {
      option: 'recoveryLimit',
      what: 'bulk recovery requests (dry runs and starts)',
      defaultMax: 5,
      defaultPerMs: 60_000,
    },
    options,
  );
}
