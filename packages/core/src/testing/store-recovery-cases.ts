import { describe, expect, it } from 'vitest';
import type { WebhookStore } from '../adapters/store';
import { newRecoveryRecord, type RecoveryRecord } from '../delivery/recovery';
import { BASE_TIME } from './delivery-record-builder';

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
}
