import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../src/errors';
import { createTestSendLimiter } from '../src/service/test-send-limit';

const NOW = 1_700_000_000_000;

describe('createTestSendLimiter(options): a token bucket per agency', () => {
  it('defaults to 10 in a burst, then one every 6 s', () => {
    const take = createTestSendLimiter(undefined);
    for (let index = 0; index < 10; index += 1) take('agency-a', NOW);
    const refused = (() => {
      try {
        take('agency-a', NOW);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfterMs: 6_000 });
    expect(() => take('agency-a', NOW + 5_999)).toThrow(RateLimitedError);
    expect(() => take('agency-a', NOW + 6_000)).not.toThrow();
    expect(() => take('agency-a', NOW + 6_000)).toThrow(RateLimitedError);
  });

  it('a refused take uses nothing: the wait does not grow by asking', () => {
    const take = createTestSendLimiter({ max: 1, perMs: 1_000 });
    take('agency-a', NOW);
    for (let index = 0; index < 5; index += 1)
      expect(() => take('agency-a', NOW + 500)).toThrow(RateLimitedError);
    expect(() => take('agency-a', NOW + 1_000)).not.toThrow();
  });

  it('counts each agency apart, and never holds more than max', () => {
    const take = createTestSendLimiter({ max: 2, perMs: 1_000 });
    take('agency-a', NOW);
    take('agency-a', NOW);
    expect(() => take('agency-b', NOW)).not.toThrow();
    // An hour idle earns back max, not 3,600.
    take('agency-a', NOW + 3_600_000);
    take('agency-a', NOW + 3_600_000);
    expect(() => take('agency-a', NOW + 3_600_000)).toThrow(RateLimitedError);
  });

  it('false turns it off; a bad option is invalid_option', () => {
    const take = createTestSendLimiter(false);
    for (let index = 0; index < 1_000; index += 1) take('agency-a', NOW);
    expect(() => createTestSendLimiter({ max: 0 })).toThrow(
      expect.objectContaining({ option: 'testSendLimit.max' }),
    );
    expect(() => createTestSendLimiter({ perMs: 2.5 })).toThrow(
      expect.objectContaining({ code: 'invalid_option', option: 'testSendLimit.perMs' }),
    );
  });
});
