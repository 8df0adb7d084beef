import type { DeliveryRecord } from '@svc/webhooks-core';
import { makeDeliveryRecord, makeRecoveryRecord } from '@svc/webhooks-core/testing';
import { expect, it } from 'vitest';
import { createPgWebhooks } from '../src/index';
import { createTestPool, describePg, useTestSchema } from './pg-test-database';

/** Matches the default times of makeDeliveryRecord (epoch ms, 14 Nov 2023). */
const BASE_TIME = 1_700_000_000_000;

describePg('PostgreSQL store specifics', () => {
  const pool = createTestPool();
  const db = useTestSchema(pool);
  const adapters = () => createPgWebhooks({ pool, schema: db.schema, notify: false });

  it('insertDelivery with { transaction } writes in the host transaction: gone on ROLLBACK, kept on COMMIT', async () => {
    const { store } = adapters();
    const rolledBack = makeDeliveryRecord();
    const committed = makeDeliveryRecord();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await store.insertDelivery(rolledBack, { transaction: client });
      // Invisible outside the transaction until it commits.
      expect(await store.getDelivery(rolledBack.id)).toBeNull();
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      await store.insertDelivery(committed, { transaction: client });
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await store.getDelivery(rolledBack.id)).toBeNull();
    expect(await store.getDelivery(committed.id)).toEqual(committed);
  });

  it('rejects a transaction option that is not a pg client, writing nothing', async () => {
    const { store, queue } = adapters();
    const record = makeDeliveryRecord();
    await expect(store.insertDelivery(record, { transaction: { begin: true } })).rejects.toMatchObject({
      code: 'invalid_option',
      option: 'transaction',
    });
    await expect(
      queue.enqueue(
        { deliveryId: record.id, agencyId: record.agencyId, runAt: BASE_TIME },
        { transaction: 42 },
      ),
    ).rejects.toMatchObject({ code: 'invalid_option', option: 'transaction' });
    expect(await store.getDelivery(record.id)).toBeNull();
  });

  it('keeps the payload key order and text exactly (json, not jsonb)', async () => {
    const { store } = adapters();
    const record = makeDeliveryRecord({ payload: { zeta: 1, alpha: { b: 2, a: 1 }, 'key with space': '' } });
    await store.insertDelivery(record);
    const stored = await store.getDelivery(record.id);
    expect(JSON.stringify(stored?.payload)).toBe(JSON.stringify(record.payload));
  });

  it('a pending delivery is due for the queue from its insert; the enqueue that follows keeps an early claim', async () => {
    const { store, queue } = adapters();
    const record = makeDeliveryRecord({ nextRetryAt: BASE_TIME });
    await store.insertDelivery(record);
    // A worker woken by the insert claims before the emitting process enqueues.
    const [claim] = await queue.claim({ limit: 10, leaseMs: 30_000, now: BASE_TIME });
    expect(claim?.deliveryId).toBe(record.id);
    await queue.enqueue({ deliveryId: record.id, agencyId: record.agencyId, runAt: BASE_TIME });
    expect(await queue.renew(claim!, 30_000, BASE_TIME + 1)).toBe(true);
    expect(await queue.claim({ limit: 10, leaseMs: 30_000, now: BASE_TIME + 2 })).toEqual([]);
  });

  it('a finished delivery is inserted without a queue entry', async () => {
    const { store, queue } = adapters();
    await store.insertDelivery(makeDeliveryRecord({ status: 'success', nextRetryAt: null }));
    await store.insertDelivery(makeDeliveryRecord({ status: 'failed', nextRetryAt: null }));
    expect(await queue.claim({ limit: 10, leaseMs: 30_000, now: BASE_TIME + 60_000 })).toEqual([]);
  });

  it('a recovery page queues its replays in the same statement; a row still claimed keeps its claim', async () => {
    const { store, queue } = adapters();
    const records = ['evt-1', 'evt-2', 'evt-3'].map((eventId) =>
      makeDeliveryRecord({
        eventId,
        createdAt: BASE_TIME - 1_000,
        status: 'failed',
        attempt: 5,
        nextRetryAt: null,
      }),
    );
    for (const record of records) await store.insertDelivery(record);
    const [held] = records as [DeliveryRecord];
    // A worker holds it (it died mid-attempt, its lease still live).
    await queue.enqueue({ deliveryId: held.id, agencyId: 'agency-a', runAt: BASE_TIME - 500 });
    const [claim] = await queue.claim({ limit: 1, leaseMs: 30_000, now: BASE_TIME - 500 });
    expect(claim?.deliveryId).toBe(held.id);
    const { recovery } = await store.createRecovery(
      makeRecoveryRecord({ since: BASE_TIME - 60_000, until: BASE_TIME, matched: 3 }),
    );
    const replay = await store.replayRecoveryPage!(recovery, {
      limit: 10,
      now: BASE_TIME + 5,
      leaseUntil: BASE_TIME + 30_000,
    });
    expect(replay?.replayedIds).toHaveLength(3);
    const entries = records.map((record) => ({
      deliveryId: record.id,
      agencyId: 'agency-a',
      runAt: BASE_TIME + 5,
    }));
    expect(await queue.enqueueMissing!(entries), 'every replay already has its entry').toBe(0);
    expect(await queue.renew(claim!, 30_000, BASE_TIME + 6), 'the claim was left alone').toBe(true);
    const { rows } = await pool.query(
      `SELECT run_at::float8 AS run_at FROM "${db.schema}".webhook_deliveries WHERE id = $1`,
      [held.id],
    );
    expect(rows, 'and its due time').toEqual([{ run_at: BASE_TIME - 500 }]);
    const claims = await queue.claim({ limit: 10, leaseMs: 30_000, now: BASE_TIME + 5 });
    expect(claims.map((entry) => [entry.deliveryId, entry.runAt]).sort()).toEqual(
      records
        .slice(1)
        .map((record) => [record.id, BASE_TIME + 5])
        .sort(),
    );
  });

  it('enqueue of an id the store does not hold is an error naming the store', async () => {
    const { queue } = adapters();
    const failure = queue.enqueue({ deliveryId: 'missing', agencyId: 'agency-a', runAt: BASE_TIME });
    await expect(failure).rejects.toMatchObject({ code: 'delivery_not_found' });
    await expect(failure).rejects.toThrow(/^@svc\/webhooks-pg: .*createPgStore/);
  });

  it('listDuePending leaves out a delivery a worker holds right now', async () => {
    const { store, queue } = adapters();
    const held = makeDeliveryRecord({ nextRetryAt: BASE_TIME - 10 });
    const lost = makeDeliveryRecord({ nextRetryAt: BASE_TIME - 5 });
    await store.insertDelivery(held);
    const [claim] = await queue.claim({ limit: 1, leaseMs: 30_000, now: BASE_TIME });
    expect(claim?.deliveryId).toBe(held.id);
    await store.insertDelivery(lost);
    expect((await store.listDuePending(BASE_TIME, 10)).map((record) => record.id)).toEqual([lost.id]);
  });

  it('purgeDeliveries works through a limit larger than one batch, never touching pending rows', async () => {
    const { store } = adapters();
    await pool.query(
      `INSERT INTO "${db.schema}".webhook_deliveries
         (id, agency_id, event_id, event_type, entity_type, payload, created_on, created_at, status, attempt, max_attempts)
       SELECT 'purge-' || lpad(n::text, 6, '0'), 'agency-a', 'evt-' || n, 'job_created', 'job', '{}', $1, $1,
              CASE WHEN n % 10 = 0 THEN 'pending' WHEN n % 2 = 0 THEN 'failed' ELSE 'success' END, 1, 5
         FROM generate_series(1, 12000) AS n`,
      [BASE_TIME - 1_000],
    );
    const deleted = await store.purgeDeliveries?.({ olderThan: BASE_TIME, limit: 1_000_000 });
    expect(deleted).toBe(10_800);
    const { rows } = await pool.query(
      `SELECT status, count(*)::int AS n FROM "${db.schema}".webhook_deliveries GROUP BY 1`,
    );
    expect(rows).toEqual([{ status: 'pending', n: 1_200 }]);
  });
});
