import { describe, expect, it } from 'vitest';
import type { DeliveryExpectation, WebhookStore } from '../adapters/store';
import type { AttemptRecord } from '../delivery/attempt-record';
import type { DeliveryRecord, DeliveryUpdate } from '../delivery/delivery';
import { BASE_TIME, makeDeliveryId, makeDeliveryRecord } from './delivery-record-builder';

const DAY_MS = 86_400_000;

/** Attempt `attempt` as the history records it: a 500 answer, unless overridden. */
function attemptRecord(attempt: number, overrides: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    attempt,
    trigger: 'automatic',
    startedAt: BASE_TIME + attempt * 60_000,
    durationMs: 120 + attempt,
    responseCode: 500,
    errorKind: 'http_status',
    errorMessage: 'The receiver answered HTTP 500.',
    responseExcerpt: 'Internal Server Error',
    ...overrides,
  };
}

/** The update that records `recorded` on a delivery of five attempts: pending while attempts remain. */
function recordingUpdate(recorded: AttemptRecord, overrides: Partial<DeliveryUpdate> = {}): DeliveryUpdate {
  const last = recorded.attempt >= 5;
  return {
    status: recorded.errorKind === null ? 'success' : last ? 'failed' : 'pending',
    attempt: recorded.attempt,
    maxAttempts: 5,
    nextRetryAt: recorded.errorKind === null || last ? null : recorded.startedAt + 60_000,
    lastAttemptAt: recorded.startedAt,
    deliveredAt: recorded.errorKind === null ? recorded.startedAt : null,
    lastResponseCode: recorded.responseCode,
    lastErrorMessage: recorded.errorMessage,
    lastResponseExcerpt: recorded.responseExcerpt,
    nextAttemptTrigger: 'automatic',
    recordedAttempt: recorded,
    ...overrides,
  };
}

/** What the record must hold for `update` to apply: the state the previous attempt left. */
function expectationFor(update: DeliveryUpdate): DeliveryExpectation {
  return { attempt: update.attempt - 1, status: 'pending' };
}

async function insertFresh(
  store: WebhookStore,
  overrides: Partial<DeliveryRecord> = {},
): Promise<DeliveryRecord> {
  const record = makeDeliveryRecord(overrides);
  await store.insertDelivery(record);
  return record;
}

/** Records attempts 1..count on a fresh delivery, each a failure that leaves it pending. */
async function recordFailures(
  store: WebhookStore,
  record: DeliveryRecord,
  count: number,
): Promise<AttemptRecord[]> {
  const recorded: AttemptRecord[] = [];
  for (let attempt = 1; attempt <= count; attempt++) {
    const update = recordingUpdate(attemptRecord(attempt));
    expect(
      await store.updateDelivery(record.id, expectationFor(update), update),
      `attempt ${attempt}`,
    ).not.toBeNull();
    recorded.push(attemptRecord(attempt));
  }
  return recorded;
}

/** The attempt history: appended by the compare-and-set that records an attempt, and only by it. */
export function describeAttemptHistoryCases(store: () => WebhookStore): void {
  describe('attempt history (listAttempts, appended by updateDelivery)', () => {
    it('is empty for a delivery not attempted yet and for an unknown id', async () => {
      const record = await insertFresh(store());
      expect(await store().listAttempts(record.id), 'fresh delivery').toEqual([]);
      expect(await store().listAttempts(makeDeliveryId()), 'unknown id').toEqual([]);
    });

    it('a compare-and-set that records an attempt appends it, every field exactly as given', async () => {
      const record = await insertFresh(store());
      const failure = attemptRecord(1, {
        trigger: 'replay',
        durationMs: 0,
        responseCode: 503,
        errorMessage: 'The receiver answered HTTP 503 — “Wartung” ✗',
        responseExcerpt: `<h1>稍后再试 🔧</h1>\n\t${'é'.repeat(2_000)}`,
      });
      const timeout = attemptRecord(2, {
        trigger: 'recovery',
        durationMs: 10_000,
        responseCode: null,
        errorKind: 'timeout',
        errorMessage: 'The receiver did not answer in time.',
        responseExcerpt: null,
      });
      const success = attemptRecord(3, {
        responseCode: 204,
        errorKind: null,
        errorMessage: null,
        // The empty string is a body that was read and empty, not a missing one.
        responseExcerpt: '',
      });
      for (const recorded of [failure, timeout, success]) {
        const update = recordingUpdate(recorded);
        await store().updateDelivery(record.id, expectationFor(update), update);
      }
      expect(await store().listAttempts(record.id)).toEqual([failure, timeout, success]);
    });

    it('the record the compare-and-set returns and stores holds the update’s fields, not the attempt', async () => {
      const record = await insertFresh(store());
      const update = recordingUpdate(attemptRecord(1));
      const { recordedAttempt: _attempt, ...fields } = update;
      const expected = { ...record, ...fields };
      expect(await store().updateDelivery(record.id, expectationFor(update), update), 'returned').toEqual(
        expected,
      );
      expect(await store().getDelivery(record.id), 'stored').toEqual(expected);
    });

    it('an update without an attempt (a replay, an abandonment) appends nothing, and keeps its next trigger', async () => {
      const record = await insertFresh(store());
      const recorded = await recordFailures(store(), record, 1);
      const { recordedAttempt: _attempt, ...abandon } = recordingUpdate(attemptRecord(1), {
        status: 'failed',
        nextRetryAt: null,
        lastErrorMessage: 'Webhook configuration is disabled; no request was sent.',
      });
      await store().updateDelivery(record.id, { attempt: 1, status: 'pending' }, abandon);
      const { recordedAttempt: _none, ...replay } = recordingUpdate(attemptRecord(1), {
        status: 'pending',
        maxAttempts: 2,
        nextRetryAt: BASE_TIME + DAY_MS,
        nextAttemptTrigger: 'replay',
      });
      const replayed = await store().updateDelivery(record.id, { attempt: 1, status: 'failed' }, replay);
      expect(replayed?.nextAttemptTrigger, 'returned record').toBe('replay');
      expect((await store().getDelivery(record.id))?.nextAttemptTrigger, 'stored record').toBe('replay');
      expect(await store().listAttempts(record.id)).toEqual(recorded);
    });

    it('a compare-and-set that fails appends nothing: stale attempt, stale status, unknown delivery', async () => {
      const record = await insertFresh(store());
      const recorded = await recordFailures(store(), record, 1);
      const late = recordingUpdate(attemptRecord(1, { responseCode: 502 }));
      expect(
        await store().updateDelivery(record.id, { attempt: 0, status: 'pending' }, late),
        'stale attempt',
      ).toBeNull();
      const wrongStatus = recordingUpdate(attemptRecord(2));
      expect(
        await store().updateDelivery(record.id, { attempt: 1, status: 'failed' }, wrongStatus),
        'stale status',
      ).toBeNull();
      expect(await store().listAttempts(record.id)).toEqual(recorded);
      const unknown = makeDeliveryId();
      expect(
        await store().updateDelivery(unknown, expectationFor(late), late),
        'unknown delivery',
      ).toBeNull();
      expect(await store().listAttempts(unknown)).toEqual([]);
    });

    it('10 concurrent compare-and-sets recording attempt 1: the winner’s attempt is recorded, once', async () => {
      const record = await insertFresh(store());
      const updates = Array.from({ length: 10 }, (_, index) =>
        recordingUpdate(attemptRecord(1, { durationMs: 1_000 + index })),
      );
      const results = await Promise.all(
        updates.map((update) => store().updateDelivery(record.id, expectationFor(update), update)),
      );
      const winners = updates.filter((_, index) => results[index] !== null);
      expect(winners, 'updates that won').toHaveLength(1);
      expect(await store().listAttempts(record.id)).toEqual([winners[0]?.recordedAttempt]);
    });

    it('comes back oldest first, a replay’s attempt after the automatic ones', async () => {
      const record = await insertFresh(store());
      const automatic = await recordFailures(store(), record, 4);
      const last = recordingUpdate(attemptRecord(5));
      await store().updateDelivery(record.id, expectationFor(last), last);
      const { recordedAttempt: _none, ...replay } = recordingUpdate(attemptRecord(5), {
        status: 'pending',
        maxAttempts: 6,
        nextRetryAt: BASE_TIME + DAY_MS,
        nextAttemptTrigger: 'replay',
      });
      await store().updateDelivery(record.id, { attempt: 5, status: 'failed' }, replay);
      const replayed = attemptRecord(6, {
        trigger: 'replay',
        responseCode: 200,
        errorKind: null,
        errorMessage: null,
      });
      const delivered = recordingUpdate(replayed, { maxAttempts: 6 });
      expect(
        await store().updateDelivery(record.id, { attempt: 5, status: 'pending' }, delivered),
      ).not.toBeNull();
      const history = await store().listAttempts(record.id);
      expect(history.map((entry) => entry.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(history).toEqual([...automatic, attemptRecord(5), replayed]);
    });

    it('keeps each delivery’s history apart', async () => {
      const [first, second] = [await insertFresh(store()), await insertFresh(store())];
      const firstHistory = await recordFailures(store(), first, 2);
      const secondHistory = await recordFailures(store(), second, 1);
      expect(await store().listAttempts(first.id)).toEqual(firstHistory);
      expect(await store().listAttempts(second.id)).toEqual(secondHistory);
    });

    it('is keyed by attempt number: with the counter set back by hand, a repeated number keeps its first entry', async () => {
      const record = await insertFresh(store());
      const recorded = await recordFailures(store(), record, 2);
      const { recordedAttempt: _none, ...rewind } = recordingUpdate(attemptRecord(1), { attempt: 0 });
      await store().updateDelivery(record.id, { attempt: 2, status: 'pending' }, rewind);
      const again = recordingUpdate(attemptRecord(1, { responseCode: 404, errorMessage: 'again' }));
      expect(
        await store().updateDelivery(record.id, expectationFor(again), again),
        'the update applies',
      ).not.toBeNull();
      expect(await store().listAttempts(record.id)).toEqual(recorded);
    });

    it('stores only an attempt’s own fields, and detached: changing an argument or a result changes nothing', async () => {
      const record = await insertFresh(store());
      const recorded = attemptRecord(1);
      const update = recordingUpdate({ ...recorded, extra: 'not stored' } as AttemptRecord);
      await store().updateDelivery(record.id, expectationFor(update), update);
      (update.recordedAttempt as AttemptRecord).errorMessage = 'changed after the write';
      const [read] = await store().listAttempts(record.id);
      if (read) read.durationMs = -1;
      expect(await store().listAttempts(record.id)).toEqual([recorded]);
      expect(Object.keys(read ?? {}).sort()).toEqual(Object.keys(recorded).sort());
    });

    it('purgeDeliveries deletes a purged delivery’s history with it and keeps the others’', async (context) => {
      context.skip(!store().capabilities.purge, 'capabilities.purge is false');
      const old = await insertFresh(store(), { createdAt: BASE_TIME - 30 * DAY_MS });
      const recent = await insertFresh(store(), { createdAt: BASE_TIME + DAY_MS });
      const kept: AttemptRecord[] = [];
      for (const record of [old, recent]) {
        const delivered = recordingUpdate(
          attemptRecord(1, { responseCode: 200, errorKind: null, errorMessage: null }),
        );
        await store().updateDelivery(record.id, expectationFor(delivered), delivered);
        if (record === recent) kept.push(delivered.recordedAttempt as AttemptRecord);
      }
      expect(await store().purgeDeliveries?.({ olderThan: BASE_TIME, limit: 100 })).toBe(1);
      expect(await store().listAttempts(old.id), 'purged delivery').toEqual([]);
      expect(await store().listAttempts(recent.id), 'kept delivery').toEqual(kept);
    });
  });
}
