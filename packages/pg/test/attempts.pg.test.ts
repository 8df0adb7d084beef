import type { AttemptRecord, DeliveryUpdate } from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import { expect, it } from 'vitest';
import { createPgWebhooks } from '../src/index';
import { createTestPool, describePg, useTestSchema } from './pg-test-database';

const BASE_TIME = 1_700_000_000_000;
const LEASE_MS = 30_000;

function delivered(at: number, recordedAttempt?: AttemptRecord): DeliveryUpdate {
  return {
    status: 'success',
    attempt: 1,
    maxAttempts: 5,
    nextRetryAt: null,
    lastAttemptAt: at,
    deliveredAt: at,
    lastResponseCode: 200,
    lastErrorMessage: null,
    lastResponseExcerpt: 'ok',
    nextAttemptTrigger: 'automatic',
    ...(recordedAttempt ? { recordedAttempt } : {}),
  };
}

function firstAttempt(at: number): AttemptRecord {
  return {
    attempt: 1,
    trigger: 'automatic',
    startedAt: at,
    durationMs: 7,
    responseCode: 200,
    errorKind: null,
    errorMessage: null,
    responseExcerpt: 'ok',
  };
}

// The history rows are written by the compare-and-set statement itself; these
// pin what that means for batches, the claim snapshot and deletes by hand.
describePg('PostgreSQL attempt history', () => {
  const pool = createTestPool();
  const db = useTestSchema(pool);
  const attemptRows = async () =>
    (
      await pool.query(
        `SELECT delivery_id, attempt FROM "${db.schema}".webhook_attempts ORDER BY delivery_id, attempt`,
      )
    ).rows;

  it('a batch of compare-and-sets records the attempts of exactly the rows that won and carried one', async () => {
    const { store } = createPgWebhooks({ pool, schema: db.schema, notify: false });
    const records = Array.from({ length: 40 }, () => makeDeliveryRecord());
    for (const record of records) await store.insertDelivery(record);
    // Made in one turn, so they share statements: winners and losers, with an attempt and without.
    const results = await Promise.all(
      records.map((record, index) => {
        const stale = index % 2 === 1;
        const carries = index % 4 < 2;
        const at = BASE_TIME + index;
        return store.updateDelivery(
          record.id,
          { attempt: stale ? 1 : 0, status: 'pending' },
          delivered(at, carries ? firstAttempt(at) : undefined),
        );
      }),
    );
    const recorded = records.filter((_, index) => index % 4 === 0);
    expect(results.filter((result) => result !== null)).toHaveLength(20);
    expect(await attemptRows()).toEqual(
      recorded
        .map((record) => ({ delivery_id: record.id, attempt: 1 }))
        .sort((a, b) => (a.delivery_id < b.delivery_id ? -1 : 1)),
    );
    for (const record of recorded) {
      const at = BASE_TIME + records.indexOf(record);
      expect(await store.listAttempts(record.id)).toEqual([firstAttempt(at)]);
    }
  });

  it('a delivery deleted by hand takes its attempts with it (the foreign key cascades)', async () => {
    const { store } = createPgWebhooks({ pool, schema: db.schema, notify: false });
    const [gone, kept] = [makeDeliveryRecord(), makeDeliveryRecord()];
    for (const record of [gone, kept]) {
      await store.insertDelivery(record);
      await store.updateDelivery(
        record.id,
        { attempt: 0, status: 'pending' },
        delivered(BASE_TIME, firstAttempt(BASE_TIME)),
      );
    }
    await pool.query(`DELETE FROM "${db.schema}".webhook_deliveries WHERE id = $1`, [gone.id]);
    expect(await store.listAttempts(gone.id)).toEqual([]);
    expect(await attemptRows()).toEqual([{ delivery_id: kept.id, attempt: 1 }]);
  });

  it('the claim snapshot carries the trigger of the next attempt, so a replayed attempt is recorded as one', async () => {
    const { store, queue } = createPgWebhooks({ pool, schema: db.schema, notify: false });
    const record = makeDeliveryRecord({
      status: 'pending',
      attempt: 5,
      maxAttempts: 6,
      nextAttemptTrigger: 'replay',
    });
    await store.insertDelivery(record);
    await queue.claim({ limit: 1, leaseMs: LEASE_MS, now: BASE_TIME });
    // Answered from the claim's snapshot (no statement): it must hold the column too.
    expect((await store.getDelivery(record.id))?.nextAttemptTrigger).toBe('replay');
  });
});
