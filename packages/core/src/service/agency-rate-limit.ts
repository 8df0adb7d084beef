import { setNewest } from '../bounded-map';
import { RateLimitedError } from '../errors';
import { positiveIntegerOption } from '../validation';

/** Takes one request of a kind for an agency at `now` (epoch ms), or throws {@link RateLimitedError}. */
export type AgencyRateLimiter = (agencyId: string, now: number) => void;

/** What one per-agency limit is: its option's name, what it counts, and its defaults. */
export interface AgencyRateLimit {
  /** The service option, for `InvalidOptionError` (`testSendLimit`). */
  option: string;
  /** What it counts, plural, as the refusal says it: `Too many ${what} for this agency`. */
  what: string;
  /** Requests in a burst when the option leaves `max` out. */
  defaultMax: number;
  /** Time in ms over which `max` are earned back when the option leaves `perMs` out. */
  defaultPerMs: number;
}

/** Agencies whose buckets a process remembers; a forgotten agency starts again with a full bucket. */
const REMEMBERED_AGENCIES = 10_000;

/*
 * A token bucket per agency, in this process: `max` in a burst, then one every
 * `perMs / max`. A refused take uses nothing, so asking again does not push the
 * wait out. The bucket is per process: behind N processes an agency gets up to N
 * times the rate, which still bounds it; sharing it through the store would cost
 * a write per request.
 */
export function createAgencyRateLimiter(
  limit: AgencyRateLimit,
  options: { max?: number; perMs?: number } | false | undefined,
): AgencyRateLimiter {
  if (options === false) return () => undefined;
  const max = positiveIntegerOption(`${limit.option}.max`, options?.max, limit.defaultMax);
  const perMs = positiveIntegerOption(`${limit.option}.perMs`, options?.perMs, limit.defaultPerMs);
  const refillMs = perMs / max;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (agencyId, now) => {
    const bucket = buckets.get(agencyId) ?? { tokens: max, at: now };
    const tokens = Math.min(max, bucket.tokens + Math.max(0, now - bucket.at) / refillMs);
    if (tokens < 1) {
      throw new RateLimitedError(agencyId, limit.what, Math.ceil((1 - tokens) * refillMs));
    }
    setNewest(buckets, agencyId, { tokens: tokens - 1, at: now }, REMEMBERED_AGENCIES);
  };
}
