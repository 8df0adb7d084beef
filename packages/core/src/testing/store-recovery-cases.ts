import { describe, expect, it, type TestContext } from 'vitest';
import type { PurgeRecoveriesOptions, WebhookStore } from '../adapters/store';
import { newRecoveryRecord, type RecoveryRecord } from '../delivery/recovery';
import { BASE_TIME } from './delivery-record-builder';

const DAY_MS = 86_400_000;

let sequence = 0;

/** A running recovery; ids sort in creation order like the service's. */
function recovery(overrides: Partial<RecoveryRecord> = {}): RecoveryRecord {
  sequence += 1;
  return {
    ...newRecoveryRecord({
      id: `rcv-${String(sequence).padStart(6, '0')}`,
      agencyId: 'agency-a',
      since: BASE_TIME - 86_400_000,
      until: BASE_TIME,
      eventTypes: ['job_created', 'quote_approved'],
      matched: 42,
      now: BASE_TIME + sequence,
    }),
    ...overrides,
  };
}

/** Bulk recoveries: stored, one running per agency, walked under a compare-and-set. */
export function describeRecoveryCases(store: () => WebhookStore): void {
  describe('bulk recoveries', () => {
    it('createRecovery stores every field as given; getRecovery reads it back', async () => {
      const record = recovery();
      const { recovery: stored, created } = await store().createRecovery(record);
      expect(created).toBe(true);
      expect(stored).toEqual(record);
      expect(await store().getRecovery(record.id)).toEqual(record);
      expect(await store().getRecovery('rcv-missing')).toBeNull();
    });

    it('keeps null event types and a null cursor exactly', async () => {
      const record = recovery({ eventTypes: null });
      await store().createRecovery(record);
      const read = await store().getRecovery(record.id);
      expect(read?.eventTypes).toBeNull();
      expect(read?.cursorId).toBeNull();
      expect(read?.pageEndId).toBeNull();
      expect(read?.leaseUntil).toBeNull();
      expect(read?.completedAt).toBeNull();
    });

    it('a second create for an agency with one running returns the running one and stores nothing', async () => {
      const first = recovery();
      await store().createRecovery(first);
      const second = recovery();
      const result = await store().createRecovery(second);
      expect(result).toEqual({ recovery: first, created: false });
      expect(await store().getRecovery(second.id)).toBeNull();
      const otherAgency = recovery({ agencyId: 'agency-b' });
      expect((await store().createRecovery(otherAgency)).created, 'another agency').toBe(true);
    });

    it('of concurrent creates for one agency, exactly one is stored', async () => {
      const records = Array.from({ length: 8 }, () => recovery());
      const results = await Promise.all(records.map((record) => store().createRecovery(record)));
      const created = results.filter((result) => result.created);
      expect(created).toHaveLength(1);
      const winner = created[0]!.recovery;
      for (const result of results) expect(result.recovery.id).toBe(winner.id);
      const stored = await Promise.all(records.map((record) => store().getRecovery(record.id)));
      expect(stored.filter((record) => record !== null)).toHaveLength(1);
    });

    it('updateRecovery writes the given fields at the stored version and bumps it; a stale version changes nothing', async () => {
      const record = recovery();
      await store().createRecovery(record);
      const updated = await store().updateRecovery(record.id, 1, {
        replayed: 10,
        cursorId: 'dlv-0010',
        pageEndId: 'dlv-0001',
        leaseUntil: BASE_TIME + 30_000,
      });
      expect(updated).toEqual({
        ...record,
        replayed: 10,
        cursorId: 'dlv-0010',
        pageEndId: 'dlv-0001',
        leaseUntil: BASE_TIME + 30_000,
        version: 2,
      });
      expect(await store().updateRecovery(record.id, 1, { replayed: 99 }), 'stale').toBeNull();
      expect(await store().updateRecovery('rcv-missing', 1, { replayed: 1 }), 'unknown').toBeNull();
      const cleared = await store().updateRecovery(record.id, 2, {
        cursorTypeIndex: 1,
        pageEndId: null,
        leaseUntil: null,
      });
      expect(cleared).toMatchObject({
        cursorTypeIndex: 1,
        cursorId: 'dlv-0010',
        pageEndId: null,
        version: 3,
      });
      expect(cleared?.leaseUntil).toBeNull();
      expect(await store().getRecovery(record.id)).toEqual(cleared);
    });

    it('of concurrent updates with the same expected version, exactly one wins', async () => {
      const record = recovery();
      await store().createRecovery(record);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          store().updateRecovery(record.id, 1, { replayed: index + 1 }),
        ),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      expect(await store().getRecovery(record.id)).toEqual(winners[0]);
    });

    it('a recovery that completes or is cancelled frees the agency for the next one', async () => {
      const first = recovery();
      await store().createRecovery(first);
      await store().updateRecovery(first.id, 1, { status: 'completed', completedAt: BASE_TIME + 5 });
      const second = recovery();
      expect((await store().createRecovery(second)).created, 'after completed').toBe(true);
      await store().updateRecovery(second.id, 1, { status: 'cancelled', completedAt: BASE_TIME + 6 });
      const third = recovery();
      expect((await store().createRecovery(third)).created, 'after cancelled').toBe(true);
      expect((await store().getRecovery(first.id))?.status).toBe('completed');
      expect((await store().getRecovery(second.id))?.completedAt).toBe(BASE_TIME + 6);
    });

    it('listRunningRecoveries returns the running ones of every agency, oldest created first, up to limit', async () => {
      const a = recovery({ agencyId: 'agency-a', createdAt: BASE_TIME + 30 });
      const b = recovery({ agencyId: 'agency-b', createdAt: BASE_TIME + 10 });
      const c = recovery({ agencyId: 'agency-c', createdAt: BASE_TIME + 20 });
      const done = recovery({ agencyId: 'agency-d', createdAt: BASE_TIME });
      for (const record of [a, b, c, done]) await store().createRecovery(record);
      await store().updateRecovery(done.id, 1, { status: 'completed', completedAt: BASE_TIME + 40 });
      expect((await store().listRunningRecoveries(10)).map((record) => record.id)).toEqual([
        b.id,
        c.id,
        a.id,
      ]);
      expect((await store().listRunningRecoveries(2)).map((record) => record.id)).toEqual([b.id, c.id]);
      expect(await store().listRunningRecoveries(10)).toContainEqual(a);
    });

    it("listRecoveries returns the agency's recoveries of every status, newest first, page by page", async () => {
      const ids: string[] = [];
      for (const status of ['completed', 'cancelled', 'completed', 'running'] as const) {
        const record = recovery({ agencyId: 'agency-list' });
        await store().createRecovery(record);
        if (status !== 'running') {
          await store().updateRecovery(record.id, 1, { status, completedAt: BASE_TIME + 50 });
        }
        ids.push(record.id);
      }
      await store().createRecovery(recovery({ agencyId: 'agency-list-other' }));
      const newestFirst = [...ids].reverse();
      const all = await store().listRecoveries('agency-list', { limit: 10 });
      expect(all.map((record) => record.id)).toEqual(newestFirst);
      expect(all.map((record) => record.status)).toEqual(['running', 'completed', 'cancelled', 'completed']);
      expect(all[1]).toEqual(await store().getRecovery(newestFirst[1]!));

      const first = await store().listRecoveries('agency-list', { limit: 3 });
      expect(first.map((record) => record.id)).toEqual(newestFirst.slice(0, 3));
      const rest = await store().listRecoveries('agency-list', { limit: 3, beforeId: first.at(-1)!.id });
      expect(rest.map((record) => record.id)).toEqual(newestFirst.slice(3));
      expect(await store().listRecoveries('agency-list', { limit: 3, beforeId: ids[0]! })).toEqual([]);
      expect(await store().listRecoveries('agency-list-none', { limit: 10 })).toEqual([]);
    });

    it('listRecoveries takes beforeId as a position: an id it does not hold works too', async () => {
      const older = recovery({ agencyId: 'agency-position', id: 'rcv-position-1' });
      await store().createRecovery(older);
      await store().updateRecovery(older.id, 1, { status: 'completed', completedAt: BASE_TIME + 1 });
      await store().createRecovery(recovery({ agencyId: 'agency-position', id: 'rcv-position-3' }));
      const page = await store().listRecoveries('agency-position', { limit: 10, beforeId: 'rcv-position-2' });
      expect(page.map((record) => record.id)).toEqual(['rcv-position-1']);
    });

    it('returns copies: changing a result changes nothing stored', async () => {
      const record = recovery();
      const { recovery: stored } = await store().createRecovery(record);
      stored.eventTypes?.push('job_cancelled');
      stored.replayed = 1_000;
      expect(await store().getRecovery(record.id)).toEqual(record);
    });
  });

  describeRecoveryPurgeCases(store);
}

/** The store's purge of recoveries, or a skip (with a note) when it declares none. */
function recoveryPurger(store: WebhookStore, context: TestContext) {
  context.skip(!store.capabilities.purge, 'capabilities.purge is false');
  context.skip(
    !store.purgeRecoveries,
    'the store has no purgeRecoveries (written before it: the worker keeps its recoveries)',
  );
  return (options: PurgeRecoveriesOptions) => store.purgeRecoveries?.(options) as Promise<number>;
}

/** Stores a recovery and finishes it the way the walker or a cancel does; returns it as stored. */
async function finished(
  store: WebhookStore,
  status: 'completed' | 'cancelled',
  completedAt: number,
  overrides: Partial<RecoveryRecord> = {},
): Promise<RecoveryRecord> {
  const record = recovery(overrides);
  await store.createRecovery(record);
  const done = await store.updateRecovery(record.id, record.version, { status, completedAt });
  if (!done) throw new Error(`could not finish ${record.id}`);
  return done;
}

async function listedIds(store: WebhookStore, agencyId: string): Promise<string[]> {
  return (await store.listRecoveries(agencyId, { limit: 100 })).map((record) => record.id);
}

/** Retention of recoveries: `purgeRecoveries`, on the finish time, never a running one. */
function describeRecoveryPurgeCases(store: () => WebhookStore): void {
  describe('purgeRecoveries', () => {
    it('deletes completed and cancelled recoveries finished before olderThan, of every agency, never a running one, and returns the count', async (context) => {
      const purge = recoveryPurger(store(), context);
      const oldCompleted = await finished(store(), 'completed', BASE_TIME - 10 * DAY_MS);
      // Started long ago, finished at the cutoff: its age counts from `completedAt`, so it stays.
      const atCutoff = await finished(store(), 'completed', BASE_TIME, {
        createdAt: BASE_TIME - 200 * DAY_MS,
      });
      const running = recovery({ createdAt: BASE_TIME - 400 * DAY_MS });
      await store().createRecovery(running);
      const oldCancelled = await finished(store(), 'cancelled', BASE_TIME - 1, { agencyId: 'agency-b' });
      const youngCancelled = await finished(store(), 'cancelled', BASE_TIME + DAY_MS, {
        agencyId: 'agency-c',
      });
      const oldRunning = recovery({ agencyId: 'agency-d', createdAt: BASE_TIME - 400 * DAY_MS });
      await store().createRecovery(oldRunning);

      expect(await purge({ olderThan: BASE_TIME, limit: 100 }), 'deleted count').toBe(2);
      for (const gone of [oldCompleted, oldCancelled]) {
        expect(await store().getRecovery(gone.id), `${gone.status}, finished before the cutoff`).toBeNull();
      }
      for (const kept of [atCutoff, youngCancelled]) expect(await store().getRecovery(kept.id)).toEqual(kept);
      expect(await store().getRecovery(oldRunning.id), 'running, 400 days old').toEqual(oldRunning);
      expect(await listedIds(store(), 'agency-a'), 'agency-a, newest first').toEqual([
        running.id,
        atCutoff.id,
      ]);
      expect(await listedIds(store(), 'agency-b'), 'agency-b had only the old one').toEqual([]);
      expect(await listedIds(store(), 'agency-c')).toEqual([youngCancelled.id]);
      expect((await store().listRunningRecoveries(10)).map((record) => record.id).sort()).toEqual(
        [running.id, oldRunning.id].sort(),
      );
      expect(await purge({ olderThan: BASE_TIME, limit: 100 }), 'nothing old is left').toBe(0);
    });

    it('keeps what a purge leaves working: one running recovery per agency, and new ones listed', async (context) => {
      const purge = recoveryPurger(store(), context);
      await finished(store(), 'completed', BASE_TIME - DAY_MS);
      const running = recovery();
      await store().createRecovery(running);
      expect(await purge({ olderThan: BASE_TIME, limit: 100 })).toBe(1);
      const second = await store().createRecovery(recovery());
      expect(second, 'the running one is still the agency’s').toEqual({ recovery: running, created: false });
      await finished(store(), 'cancelled', BASE_TIME - DAY_MS, { agencyId: 'agency-b' });
      expect(await purge({ olderThan: BASE_TIME, limit: 100 })).toBe(1);
      const fresh = recovery({ agencyId: 'agency-b' });
      expect((await store().createRecovery(fresh)).created).toBe(true);
      expect(await listedIds(store(), 'agency-b')).toEqual([fresh.id]);
    });

    it('deletes at most `limit` per call; repeated calls finish the job', async (context) => {
      const purge = recoveryPurger(store(), context);
      for (let index = 0; index < 5; index++) {
        await finished(store(), index % 2 ? 'cancelled' : 'completed', BASE_TIME - DAY_MS + index, {
          agencyId: `agency-${index}`,
        });
      }
      const calls: number[] = [];
      for (let call = 0; call < 4; call++) calls.push(await purge({ olderThan: BASE_TIME, limit: 2 }));
      expect(calls).toEqual([2, 2, 1, 0]);
      for (let index = 0; index < 5; index++) expect(await listedIds(store(), `agency-${index}`)).toEqual([]);
    });

    it('of concurrent purges, each recovery is deleted once', async (context) => {
      const purge = recoveryPurger(store(), context);
      for (let index = 0; index < 7; index++) {
        await finished(store(), 'completed', BASE_TIME - DAY_MS + index, { agencyId: `agency-${index % 3}` });
      }
      const counts = await Promise.all(
        Array.from({ length: 4 }, () => purge({ olderThan: BASE_TIME, limit: 2 })),
      );
      const more = await purge({ olderThan: BASE_TIME, limit: 100 });
      expect(counts.reduce((sum, count) => sum + count, 0) + more).toBe(7);
      for (const count of counts) expect(count).toBeLessThanOrEqual(2);
    });
  });
}
