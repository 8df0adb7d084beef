import { setNewest } from '../bounded-map';
import { RateLimitedError } from '../errors';
import { positiveIntegerOption } from '../validation';

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

/** Takes one test send for an agency or throws {@link RateLimitedError}. */
export type TestSendLimiter = (agencyId: string, now: number) => void;

/** Agencies whose buckets a process remembers; a forgotten agency starts again with a full bucket. */
const REMEMBERED_AGENCIES = 10_000;

/*
 * A token bucket per agency, in this process. A test send reaches out to a URL
 * the tenant chose, so without a limit the endpoint is a tenant-driven request
 * generator (and, before the one-shot connections, a socket leak). The bucket is
 * per process: behind N processes an agency gets up to N times the rate, which
 * still bounds it; sharing it through the store would cost a write per send.
 */
export function createTestSendLimiter(options: TestSendLimitOptions | false | undefined): TestSendLimiter {
  if (options === false) return () => undefined;
  const max = positiveIntegerOption('testSendLimit.max', options?.max, 10);
  const perMs = positiveIntegerOption('testSendLimit.perMs', options?.perMs, 60_000);
  const refillMs = perMs / max;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (agencyId, now) => {
    const bucket = buckets.get(agencyId) ?? { tokens: max, at: now };
    const tokens = Math.min(max, bucket.tokens + Math.max(0, now - bucket.at) / refillMs);
    if (tokens < 1) {
      throw new RateLimitedError(agencyId, 'test sends', Math.ceil((1 - tokens) * refillMs));
    }
    setNewest(buckets, agencyId, { tokens: tokens - 1, at: now }, REMEMBERED_AGENCIES);
  };
}
