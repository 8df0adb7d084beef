import { type AgencyRateLimiter, createAgencyRateLimiter } from './agency-rate-limit';

/** The per-agency limit on test sends: the `testSendLimit` option of {@link createWebhookService}. */
export interface TestSendLimitOptions {
  /**
   * Test sends an agency may make in a burst.
   * @default 10
   */
  max?: number;
  /**
   * Time in ms over which `max` sends are earned back (one every `perMs / max`).
   * @default 60_000
   */
  perMs?: number;
}

/** Takes one test send for an agency or throws `RateLimitedError`. */
export type TestSendLimiter = AgencyRateLimiter;

/*
 * A test send reaches out to a URL the tenant chose, so without a limit the
 * endpoint is a tenant-driven request generator (and, before the one-shot
 * connections, a socket leak).
 */
export function createTestSendLimiter(options: TestSendLimitOptions | false | undefined): TestSendLimiter {
  return createAgencyRateLimiter(
    { option: 'testSendLimit', what: 'test sends', defaultMax: 10, defaultPerMs: 60_000 },
    options,
  );
}
