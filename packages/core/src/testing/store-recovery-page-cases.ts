import { describe, expect, it, type TestContext } from 'vitest';
import type { RecoveryPageOptions, WebhookStore } from '../adapters/store';
import type { DeliveryRecord } from '../delivery/delivery';
import { newRecoveryRecord, type RecoveryRecord } from '../delivery/recovery';
import { replayUpdate } from '../delivery/state-machine';
import { BASE_TIME, makeDeliveryRecord } from './delivery-record-builder';
import { insertScrambled, newestFirst } from './store-list-cases';

const HOUR = 3_600_000;
const SINCE = BASE_TIME - 24 * HOUR;
const UNTIL = BASE_TIME;
const NOW = BASE_TIME + HOUR;
const PAGE: RecoveryPageOptions = { limit: 4, now: NOW, leaseUntil: NOW + 30_000 };

let sequence = 0;

/** The store's page replay, or a skip (with a note) when the store has none: the method is optional. */
function pageReplayer(store: WebhookStore, context: TestContext) {
  context.skip(
    !store.replayRecoveryPage,
    'the store has no replayRecoveryPage, an optional method (the walker replays each delivery instead)',
  );
  return (recovery: RecoveryRecord, page: RecoveryPageOptions = PAGE) =>
    store.replayRecoveryPage?.(recovery, page) as ReturnType<NonNullable<WebhookStore['replayRecoveryPage']>>;
}

async function startRecovery(store: WebhookStore, overrides: Partial<RecoveryRecord> = {}) {
  sequence += 1;
  const record = {
    ...newRecoveryRecord({
      id: `rcv-page-${String(sequence).padStart(6, '0')}`,
      agencyId: 'agency-a',
      since: SINCE,
      until: UNTIL,
      eventTypes: null,
      matched: 0,
      now: NOW - 1,
    }),
    ...overrides,
  };
  await store.createRecovery(record);
  return record;
}

/** A delivery that failed for good after five attempts, created `hoursAgo` before the window's end. */
function failed(hoursAgo: number, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return makeDeliveryRecord({
    createdAt: UNTIL - hoursAgo * HOUR,
    status: 'failed',
    attempt: 5,
    maxAttempts: 5,
    nextRetryAt: null,
    lastAttemptAt: UNTIL - 1_000,
    lastResponseCode: 503,
    lastErrorMessage: 'Receiver answered 503',
    lastResponseExcerpt: '{"error":"unavailable"}',
    ...overrides,
  });
}

/** Every record's stored state is what replaying exactly `replayed` of them would leave. */
async function expectReplayedExactly(
  store: WebhookStore,
  records: readonly DeliveryRecord[],
  replayed: readonly string[],
): Promise<void> {
  for (const record of records) {
    const expected = replayed.includes(record.id)
      ? { ...record, ...replayUpdate(record, NOW, 'recovery') }
      : record;
    expect(await store.getDelivery(record.id), record.id).toEqual(expected);
  }
}

/**
 * `replayRecoveryPage`: the walker's page, opened and replayed in one atomic step, must
 * leave exactly what listing the page and replaying each delivery with `updateDelivery` would.
 */
export function describeRecoveryPageCases(store: () => WebhookStore): void {
  describe('replaying a recovery page', () => {
    it('replays the newest failed deliveries of the window as replayUpdate would, and opens the page', async (context) => {
      const replayPage = pageReplayer(store(), context);
      const inWindow = [1, 2, 3, 4, 5, 6].map((hoursAgo) =>
        failed(hoursAgo, { eventType: hoursAgo % 2 ? 'job_created' : 'quote_approved' }),
      );
      const others = [
        failed(0.5, { status: 'success', deliveredAt: UNTIL - 1_000, lastErrorMessage: null }),
        makeDeliveryRecord({ createdAt: UNTIL - 2 * HOUR }),
        failed(-1),
        failed(25),
        failed(2, { agencyId: 'agency-b' }),
      ];
      await insertScrambled(store(), [...inWindow, ...others]);
      const recovery = await startRecovery(store());

      const replay = await replayPage(recovery);
      const expectedIds = newestFirst(inWindow).slice(0, PAGE.limit);
      expect(replay?.replayedIds).toEqual(expectedIds);
      const opened = { ...recovery, pageEndId: expectedIds.at(-1), leaseUntil: PAGE.leaseUntil, version: 2 };
      expect(replay?.recovery).toEqual(opened);
      expect(await store().getRecovery(recovery.id)).toEqual(opened);
      await expectReplayedExactly(store(), [...inWindow, ...others], expectedIds);
      const due = await store().listDuePending(NOW, 100);
      expect(due.map((record) => record.id).sort()).toEqual([...expectedIds, others[1]!.id].sort());
    });

    it('rebuilds the update of any failed delivery, whatever its text holds and however large', async (context) => {
      const replayPage = pageReplayer(store(), context);
      const attempted = makeDeliveryRecord({ createdAt: UNTIL - HOUR, attempt: 4, nextRetryAt: BASE_TIME });
      await store().insertDelivery(attempted);
      const lastAttempt = {
        status: 'failed' as const,
        attempt: 5,
        maxAttempts: 5,
        nextRetryAt: null,
        lastAttemptAt: UNTIL - 500,
        deliveredAt: null,
        lastResponseCode: null,
        lastErrorMessage: 'connect ECONNREFUSED — "quoted" / back\\slash\nnew line é 😀',
        lastResponseExcerpt: null,
        nextAttemptTrigger: 'automatic' as const,
      };
      const saved = await store().updateDelivery(
        attempted.id,
        { status: 'pending', attempt: 4 },
        lastAttempt,
      );
      // A lone surrogate: valid in a JavaScript string and its JSON, refused by stricter decoders.
      const unpaired = failed(2, { lastResponseExcerpt: `cut \ud83d here`, lastErrorMessage: '\udc00' });
      await store().insertDelivery(unpaired);
      const large = failed(3, { payload: { notes: 'x'.repeat(100_000) } });
      await store().insertDelivery(large);
      const recovery = await startRecovery(store());

      // Compared with what the store holds: PostgreSQL's text, for one, keeps no unpaired surrogate.
      const stored = await Promise.all([unpaired, large].map((record) => store().getDelivery(record.id)));

      const replay = await replayPage(recovery);
      expect(replay?.replayedIds).toEqual(newestFirst([attempted, unpaired, large]));
      await expectReplayedExactly(
        store(),
        [saved, ...stored].map((record) => record as DeliveryRecord),
        replay?.replayedIds ?? [],
      );
    });

    it('follows the cursor and the event type the recovery is at', async (context) => {
      const replayPage = pageReplayer(store(), context);
      const records = [1, 2, 3, 4, 5, 6, 7].map((hoursAgo) =>
        failed(hoursAgo, { eventType: hoursAgo <= 4 ? 'job_created' : 'quote_approved' }),
      );
      await insertScrambled(store(), records);
      const jobCreated = newestFirst(records.filter((record) => record.eventType === 'job_created'));
      const recovery = await startRecovery(store(), {
        eventTypes: ['quote_approved', 'job_created'],
        cursorTypeIndex: 1,
        cursorId: jobCreated[0],
      });

      const replay = await replayPage(recovery);
      expect(replay?.replayedIds).toEqual(jobCreated.slice(1));
      await expectReplayedExactly(store(), records, jobCreated.slice(1));
    });

    it('writes nothing for a stale version, nor when no failed delivery is left', async (context) => {
      const replayPage = pageReplayer(store(), context);
      const record = failed(1);
      await store().insertDelivery(record);
      const recovery = await startRecovery(store());
      const moved = await store().updateRecovery(recovery.id, 1, { leaseUntil: NOW });

      expect(await replayPage(recovery), 'stale version').toBeNull();
      expect(await store().getDelivery(record.id)).toEqual(record);
      expect(await store().getRecovery(recovery.id)).toEqual(moved);

      const past = { ...(moved as RecoveryRecord), cursorId: record.id };
      await store().updateRecovery(recovery.id, 2, { cursorId: record.id });
      const atEnd = { ...past, version: 3 };
      expect(await replayPage(atEnd)).toEqual({ recovery: atEnd, replayedIds: [] });
      expect(await store().getRecovery(recovery.id)).toEqual(atEnd);
      expect(await store().getDelivery(record.id)).toEqual(record);
    });

    it('of a page replay and a concurrent replay of one of its deliveries, one is written', async (context) => {
      const replayPage = pageReplayer(store(), context);
      for (let round = 0; round < 5; round++) {
        const records = [1, 2, 3].map((hoursAgo) => failed(hoursAgo, { agencyId: `agency-race-${round}` }));
        await insertScrambled(store(), records);
        const recovery = await startRecovery(store(), { agencyId: `agency-race-${round}` });
        const contested = records[1] as DeliveryRecord;
        const [replay, manual] = await Promise.all([
          replayPage(recovery),
          store().updateDelivery(
            contested.id,
            { status: 'failed', attempt: 5 },
            replayUpdate(contested, NOW),
          ),
        ]);
        const byPage = replay?.replayedIds.includes(contested.id) ?? false;
        expect(byPage, 'exactly one of the two replayed it').toBe(manual === null);
        const stored = await store().getDelivery(contested.id);
        expect(stored?.nextAttemptTrigger).toBe(byPage ? 'recovery' : 'replay');
        expect(replay?.replayedIds).toHaveLength(byPage ? 3 : 2);
      }
    });
  });
}
