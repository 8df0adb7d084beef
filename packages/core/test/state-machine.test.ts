import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../src/delivery/attempt-outcome';
import type { AttemptRecord } from '../src/delivery/attempt-record';
import type { DeliveryRecord, DeliveryUpdate } from '../src/delivery/delivery';
import { DEFAULT_RETRY_POLICY } from '../src/delivery/retry-policy';
import {
  abandonUpdate,
  applyAttemptOutcome,
  canReplay,
  replayUpdate,
  SENDER_BUSY_RETRY_MS,
} from '../src/delivery/state-machine';
import { DeliveryNotReplayableError } from '../src/errors';

const NOW = 1_700_000_000_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A frozen record, so a transition that mutated its input would throw. */
function record(overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return Object.freeze({
    id: '01919a4e-3b2c-7000-8f3a-6c1d2e4b5a69',
    agencyId: 'ag_1',
    eventId: 'evt_1',
    eventType: 'job_cancelled',
    entityType: 'job',
    entityId: 'job_1',
    parentEntityId: null,
    createdById: null,
    createdByRole: 'System',
    payload: { jobId: 'job_1', agencyId: 'ag_1', jobNumber: 1, reason: 'Duplicate' },
    createdOn: NOW - HOUR,
    createdAt: NOW - HOUR,
    status: 'pending',
    attempt: 0,
    maxAttempts: 5,
    nextRetryAt: NOW - HOUR,
    lastAttemptAt: null,
    deliveredAt: null,
    lastResponseCode: null,
    lastErrorMessage: null,
    lastResponseExcerpt: null,
    nextAttemptTrigger: 'automatic',
    ...overrides,
  });
}

const ok: AttemptOutcome = {
  ok: true,
  statusCode: 200,
  errorKind: null,
  errorMessage: null,
  durationMs: 8,
  responseExcerpt: 'received',
  retryAfterMs: null,
};

function httpFailure(statusCode: number, retryAfterMs: number | null = null): AttemptOutcome {
  return {
    ok: false,
    statusCode,
    errorKind: 'http_status',
    errorMessage: `Receiver answered HTTP ${statusCode}`,
    durationMs: 8,
    responseExcerpt: 'oops',
    retryAfterMs,
  };
}

const timeout: AttemptOutcome = {
  ok: false,
  statusCode: null,
  errorKind: 'timeout',
  errorMessage: 'No response within 10000 ms',
  durationMs: 10_000,
  responseExcerpt: null,
  retryAfterMs: null,
};

const connectRefused: AttemptOutcome = {
  ...timeout,
  errorKind: 'connect',
  errorMessage: 'connect ECONNREFUSED',
  durationMs: 3,
};

/** The last-attempt fields of a record after one failed attempt (5 of them spent by the time it is `failed`). */
const afterFailures = (attempt: number): Partial<DeliveryRecord> => ({
  attempt,
  lastAttemptAt: NOW - MINUTE,
  lastResponseCode: 500,
  lastErrorMessage: 'Receiver answered HTTP 500',
  lastResponseExcerpt: 'oops',
});

describe('applyAttemptOutcome()', () => {
  const cases: Array<{
    name: string;
    before: DeliveryRecord;
    outcome: AttemptOutcome;
    random?: number;
    /** The record's fields; every row also checks the attempt it records against them. */
    expected: Omit<DeliveryUpdate, 'nextAttemptTrigger' | 'recordedAttempt'>;
  }> = [
    {
      name: 'first attempt answered 200 -> success',
      before: record(),
      outcome: ok,
      expected: {
        status: 'success',
        attempt: 1,
        maxAttempts: 5,
        nextRetryAt: null,
        lastAttemptAt: NOW,
        deliveredAt: NOW,
        lastResponseCode: 200,
        lastErrorMessage: null,
        lastResponseExcerpt: 'received',
      },
    },
    ...[
      [0, 48_000],
      [0.5, MINUTE],
      [1, 72_000],
    ].map(([random, delay]) => ({
      name: `first attempt answered 500, random ${random} -> pending, retry in ${delay} ms`,
      before: record(),
      outcome: httpFailure(500),
      random: random as number,
      expected: {
        status: 'pending' as const,
        attempt: 1,
        maxAttempts: 5,
        nextRetryAt: NOW + (delay as number),
        lastAttemptAt: NOW,
        deliveredAt: null,
        lastResponseCode: 500,
        lastErrorMessage: 'Receiver answered HTTP 500',
        lastResponseExcerpt: 'oops',
      },
    })),
    {
      name: 'second attempt answered 429 with Retry-After 1 h -> pending, retry in 1 h',
      before: record(afterFailures(1)),
      outcome: httpFailure(429, HOUR),
      random: 0.5,
      expected: {
        status: 'pending',
        attempt: 2,
        maxAttempts: 5,
        nextRetryAt: NOW + HOUR,
        lastAttemptAt: NOW,
        deliveredAt: null,
        lastResponseCode: 429,
        lastErrorMessage: 'Receiver answered HTTP 429',
        lastResponseExcerpt: 'oops',
      },
    },
    {
      name: 'fourth attempt failed -> pending, retry in 12 h',
      before: record(afterFailures(3)),
      outcome: httpFailure(502),
      random: 0.5,
      expected: {
        status: 'pending',
        attempt: 4,
        maxAttempts: 5,
        nextRetryAt: NOW + 12 * HOUR,
        lastAttemptAt: NOW,
        deliveredAt: null,
        lastResponseCode: 502,
        lastErrorMessage: 'Receiver answered HTTP 502',
        lastResponseExcerpt: 'oops',
      },
    },
    {
      name: 'fifth attempt failed -> failed, nothing scheduled',
      before: record(afterFailures(4)),
      outcome: httpFailure(500),
      expected: {
        status: 'failed',
        attempt: 5,
        maxAttempts: 5,
        nextRetryAt: null,
        lastAttemptAt: NOW,
        deliveredAt: null,
        lastResponseCode: 500,
        lastErrorMessage: 'Receiver answered HTTP 500',
        lastResponseExcerpt: 'oops',
      },
    },
    {
      name: 'third attempt succeeded after failures -> success, error cleared',
      before: record(afterFailures(2)),
      outcome: { ...ok, statusCode: 204, responseExcerpt: null },
      expected: {
        status: 'success',
        attempt: 3,
        maxAttempts: 5,
        nextRetryAt: null,
        lastAttemptAt: NOW,
        deliveredAt: NOW,
        lastResponseCode: 204,
        lastErrorMessage: null,
        lastResponseExcerpt: null,
      },
    },
    {
      name: 'first attempt timed out -> pending, no response code',
      before: record(),
      outcome: timeout,
      random: 0.5,
      expected: {
        status: 'pending',
        attempt: 1,
        maxAttempts: 5,
        nextRetryAt: NOW + MINUTE,
        lastAttemptAt: NOW,
        deliveredAt: null,
        lastResponseCode: null,
        lastErrorMessage: 'No response within 10000 ms',
        lastResponseExcerpt: null,
      },
    },
    {
      name: 'second attempt could not connect -> pending, retry in 10 min',
      before: record(afterFailures(1)),
      outcome: connectRefused,
      random: 0.5,
      expected: {
        status: 'pending',
        attempt: 2,
        maxAttempts: 5,
        nextRetryAt: NOW + 10 * MINUTE,
        lastAttemptAt: NOW,
        deliveredAt: null,
        lastResponseCode: null,
        lastErrorMessage: 'connect ECONNREFUSED',
        lastResponseExcerpt: null,
      },
    },
    {
      name: 'a delivery allowed a single attempt fails it -> failed at once',
      before: record({ maxAttempts: 1 }),
      outcome: timeout,
      expected: {
        status: 'failed',
        attempt: 1,
        maxAttempts: 1,
        nextRetryAt: null,
        lastAttemptAt: NOW,
        deliveredAt: null,
        lastResponseCode: null,
        lastErrorMessage: 'No response within 10000 ms',
        lastResponseExcerpt: null,
      },
    },
    {
      name: 'replayed attempt 6 succeeds -> success at attempt 6',
      before: record({ ...afterFailures(5), maxAttempts: 6, nextRetryAt: NOW }),
      outcome: ok,
      expected: {
        status: 'success',
        attempt: 6,
        maxAttempts: 6,
        nextRetryAt: null,
        lastAttemptAt: NOW,
        deliveredAt: NOW,
        lastResponseCode: 200,
        lastErrorMessage: null,
        lastResponseExcerpt: 'received',
      },
    },
    {
      name: 'replayed attempt 6 fails -> failed again at attempt 6',
      before: record({ ...afterFailures(5), maxAttempts: 6, nextRetryAt: NOW }),
      outcome: httpFailure(503, HOUR),
      expected: {
        status: 'failed',
        attempt: 6,
        maxAttempts: 6,
        nextRetryAt: null,
        lastAttemptAt: NOW,
        deliveredAt: null,
        lastResponseCode: 503,
        lastErrorMessage: 'Receiver answered HTTP 503',
        lastResponseExcerpt: 'oops',
      },
    },
  ];

  it.each(cases)('$name', ({ before, outcome, random, expected }) => {
    const { nextAttemptTrigger, recordedAttempt, ...fields } = applyAttemptOutcome(
      before,
      outcome,
      NOW,
      DEFAULT_RETRY_POLICY,
      () => random ?? 0.5,
    );
    expect(fields).toEqual(expected);
    expect(nextAttemptTrigger).toBe('automatic');
    expect(recordedAttempt).toEqual({
      attempt: expected.attempt,
      trigger: 'automatic',
      startedAt: NOW,
      durationMs: outcome.durationMs,
      responseCode: expected.lastResponseCode,
      errorKind: outcome.errorKind,
      errorMessage: expected.lastErrorMessage,
      responseExcerpt: expected.lastResponseExcerpt,
    });
  });

  it("decides with the record's maxAttempts, not the policy's", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 10 };
    expect(applyAttemptOutcome(record(afterFailures(4)), httpFailure(500), NOW, policy).status).toBe(
      'failed',
    );
  });

  it.each([
    [
      'http_status with a code',
      { ...httpFailure(418), errorMessage: null },
      'The receiver answered HTTP 418.',
    ],
    ['timeout', { ...timeout, errorMessage: null }, 'The receiver did not answer in time.'],
    [
      'private_address',
      { ...timeout, errorKind: 'private_address' as const, errorMessage: null },
      'The webhook URL resolved to a non-public address; no request was sent.',
    ],
  ])('writes a default lastErrorMessage for %s when the transport gave none', (_label, outcome, message) => {
    expect(
      applyAttemptOutcome(record(), outcome, NOW, DEFAULT_RETRY_POLICY, () => 0.5).lastErrorMessage,
    ).toBe(message);
  });

  it('keeps the jittered retry inside ±20 % over many draws of Math.random', () => {
    for (let draw = 0; draw < 200; draw++) {
      const { nextRetryAt } = applyAttemptOutcome(record(), httpFailure(500), NOW, DEFAULT_RETRY_POLICY);
      expect(nextRetryAt! - NOW).toBeGreaterThanOrEqual(48_000);
      expect(nextRetryAt! - NOW).toBeLessThanOrEqual(72_000);
    }
  });
});

describe('the attempt an outcome records (recordedAttempt)', () => {
  const cases: Array<{
    name: string;
    before: DeliveryRecord;
    outcome: AttemptOutcome;
    expected: AttemptRecord;
  }> = [
    {
      name: 'a 2xx: its code and excerpt, no error',
      before: record(),
      outcome: ok,
      expected: {
        attempt: 1,
        trigger: 'automatic',
        startedAt: NOW,
        durationMs: 8,
        responseCode: 200,
        errorKind: null,
        errorMessage: null,
        responseExcerpt: 'received',
      },
    },
    {
      name: 'a timeout: no code, the error kind and the tenant-safe text',
      before: record(afterFailures(2)),
      outcome: timeout,
      expected: {
        attempt: 3,
        trigger: 'automatic',
        startedAt: NOW,
        durationMs: 10_000,
        responseCode: null,
        errorKind: 'timeout',
        errorMessage: 'No response within 10000 ms',
        responseExcerpt: null,
      },
    },
    {
      name: 'a non-2xx without a transport text: the default text, as lastErrorMessage gets it',
      before: record(),
      outcome: { ...httpFailure(418), errorMessage: null, durationMs: 12.6 },
      expected: {
        attempt: 1,
        trigger: 'automatic',
        startedAt: NOW,
        durationMs: 13,
        responseCode: 418,
        errorKind: 'http_status',
        errorMessage: 'The receiver answered HTTP 418.',
        responseExcerpt: 'oops',
      },
    },
    {
      name: 'the attempt a replay asked for: trigger replay, numbered after the last',
      before: record({ ...afterFailures(5), maxAttempts: 6, nextAttemptTrigger: 'replay' }),
      outcome: ok,
      expected: {
        attempt: 6,
        trigger: 'replay',
        startedAt: NOW,
        durationMs: 8,
        responseCode: 200,
        errorKind: null,
        errorMessage: null,
        responseExcerpt: 'received',
      },
    },
    {
      name: 'the attempt a bulk recovery asked for: trigger recovery',
      before: record({ ...afterFailures(5), maxAttempts: 6, nextAttemptTrigger: 'recovery' }),
      outcome: connectRefused,
      expected: {
        attempt: 6,
        trigger: 'recovery',
        startedAt: NOW,
        durationMs: 3,
        responseCode: null,
        errorKind: 'connect',
        errorMessage: 'connect ECONNREFUSED',
        responseExcerpt: null,
      },
    },
  ];

  it.each(cases)('$name', ({ before, outcome, expected }) => {
    const update = applyAttemptOutcome(before, outcome, NOW, DEFAULT_RETRY_POLICY, () => 0.5);
    expect(update.recordedAttempt).toEqual(expected);
    // Whatever the attempt counted as, the one after it is a scheduled retry again.
    expect(update.nextAttemptTrigger).toBe('automatic');
  });
});

describe('applyAttemptOutcome() when the sender was too busy to send (sender_busy)', () => {
  const senderBusy: AttemptOutcome = {
    ok: false,
    statusCode: null,
    errorKind: 'sender_busy',
    errorMessage: 'The sender was too busy to send the request in time; the receiver was not at fault.',
    durationMs: 30_000,
    responseExcerpt: null,
    retryAfterMs: null,
  };

  it('spends no attempt, records none, keeps the trigger and the last answer, and is due again shortly', () => {
    const before = record({
      ...afterFailures(4),
      lastResponseCode: 503,
      lastResponseExcerpt: 'busy',
      nextAttemptTrigger: 'replay',
    });
    const update = applyAttemptOutcome(before, senderBusy, NOW, DEFAULT_RETRY_POLICY, () => 0.5);
    expect(update).toEqual({
      status: 'pending',
      attempt: before.attempt,
      maxAttempts: before.maxAttempts,
      nextRetryAt: NOW + SENDER_BUSY_RETRY_MS,
      lastAttemptAt: before.lastAttemptAt,
      deliveredAt: null,
      lastResponseCode: 503,
      lastErrorMessage: senderBusy.errorMessage,
      lastResponseExcerpt: 'busy',
      nextAttemptTrigger: 'replay',
    });
    expect(update.recordedAttempt).toBeUndefined();
  });

  it('on what would be the last attempt too: the delivery never fails for our own queueing', () => {
    const before = record(afterFailures(4));
    expect(applyAttemptOutcome(before, senderBusy, NOW, DEFAULT_RETRY_POLICY).status).toBe('pending');
  });
});

describe('replayUpdate()', () => {
  it('moves a delivery failed after 5 attempts to pending, due now, with exactly one more attempt', () => {
    const failed = record({ ...afterFailures(5), status: 'failed', nextRetryAt: null });
    expect(replayUpdate(failed, NOW)).toEqual({
      status: 'pending',
      attempt: 5,
      maxAttempts: 6,
      nextRetryAt: NOW,
      lastAttemptAt: NOW - MINUTE,
      deliveredAt: null,
      lastResponseCode: 500,
      lastErrorMessage: 'Receiver answered HTTP 500',
      lastResponseExcerpt: 'oops',
      nextAttemptTrigger: 'replay',
    });
  });

  it('records no attempt, and marks the next one with the trigger it is given (recovery for a bulk recovery)', () => {
    const failed = record({ ...afterFailures(5), status: 'failed', nextRetryAt: null });
    const update = replayUpdate(failed, NOW, 'recovery');
    expect(update.nextAttemptTrigger).toBe('recovery');
    expect(update).not.toHaveProperty('recordedAttempt');
  });

  it('continues the counter across repeated replays: 5 -> 6 -> failed -> 7', () => {
    const failed = record({ ...afterFailures(5), status: 'failed', nextRetryAt: null });
    const replayed = { ...failed, ...replayUpdate(failed, NOW) };
    const sixth = {
      ...replayed,
      ...applyAttemptOutcome(replayed, httpFailure(500), NOW + 1, DEFAULT_RETRY_POLICY),
    };
    expect(sixth).toMatchObject({ status: 'failed', attempt: 6, maxAttempts: 6 });
    const again = { ...sixth, ...replayUpdate(sixth, NOW + 2) };
    const seventh = applyAttemptOutcome(again, ok, NOW + 3, DEFAULT_RETRY_POLICY);
    expect(seventh).toMatchObject({ status: 'success', attempt: 7, maxAttempts: 7, deliveredAt: NOW + 3 });
  });

  it('replays a delivery abandoned before any attempt with one attempt', () => {
    const abandoned = record({ status: 'failed', nextRetryAt: null, lastErrorMessage: 'disabled' });
    expect(replayUpdate(abandoned, NOW)).toMatchObject({ status: 'pending', attempt: 0, maxAttempts: 1 });
  });

  it.each(['pending', 'success'] as const)(
    'refuses to replay a %s delivery with delivery_not_replayable',
    (status) => {
      const current = record({ status });
      const error = (() => {
        try {
          replayUpdate(current, NOW);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(DeliveryNotReplayableError);
      expect((error as DeliveryNotReplayableError).code).toBe('delivery_not_replayable');
      expect((error as DeliveryNotReplayableError).details).toEqual({ deliveryId: current.id, status });
    },
  );
});

describe('canReplay()', () => {
  it.each([
    ['failed', true],
    ['pending', false],
    ['success', false],
  ] as const)('%s -> %s', (status, expected) => {
    expect(canReplay(record({ status }))).toBe(expected);
  });
});

describe('abandonUpdate()', () => {
  it.each([
    ['config_disabled', 'Webhook configuration is disabled; no request was sent.'],
    ['config_deleted', 'Webhook configuration was deleted; no request was sent.'],
  ] as const)('%s -> failed without counting an attempt', (reason, message) => {
    const before = record(afterFailures(2));
    expect(abandonUpdate(before, reason, NOW)).toEqual({
      status: 'failed',
      attempt: 2,
      maxAttempts: 5,
      nextRetryAt: null,
      lastAttemptAt: NOW - MINUTE,
      deliveredAt: null,
      lastResponseCode: 500,
      lastErrorMessage: message,
      lastResponseExcerpt: 'oops',
      nextAttemptTrigger: 'automatic',
    });
  });

  it('records no attempt and keeps the trigger a replay gave the attempt it did not make', () => {
    const replayed = record({ ...afterFailures(5), maxAttempts: 6, nextAttemptTrigger: 'replay' });
    const update = abandonUpdate(replayed, 'config_deleted', NOW);
    expect(update.nextAttemptTrigger).toBe('replay');
    expect(update).not.toHaveProperty('recordedAttempt');
  });

  it('gives up a never-attempted delivery with attempt 0 and no attempt time', () => {
    expect(abandonUpdate(record(), 'config_disabled', NOW)).toMatchObject({
      status: 'failed',
      attempt: 0,
      lastAttemptAt: null,
      lastResponseCode: null,
    });
  });
});
