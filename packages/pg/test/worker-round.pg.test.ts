import type { DeliveryUpdate } from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import { afterAll, expect, it } from 'vitest';
import { createPgWebhooks } from '../src/index';
import { createTestPool, describePg, useTestSchema } from './pg-test-database';

const BASE_TIME = 1_700_000_000_000;
const LEASE_MS = 30_000;

function delivered(at: number): DeliveryUpdate {
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
  };
}

function retryAt(at: number, next: number): DeliveryUpdate {
  return { ...delivered(at), status: 'pending', deliveredAt: null, nextRetryAt: next, lastResponseCode: 503 };
}

// The worker's round on a claimed delivery (getDelivery, updateDelivery, ack or
// reschedule) is served with fewer statements; these pin that every call still
// answers exactly as the contract says.
describePg("the worker's round on a claimed delivery", () => {
  const pool = createTestPool();
  const otherProcess = createTestPool();
  const db = useTestSchema(pool);
  afterAll(() => otherProcess.end());
  const queueColumns = async (id: string) =>
    (await pool.query(`SELECT run_at, claim_id FROM "${db.schema}".webhook_deliveries WHERE id = $1`, [id]))
      .rows[0];

  it('recording a finished attempt on a held claim removes the entry; ack then answers true once', async () => {
    const { store, queue } = createPgWebhooks({ pool, schema: db.schema, notify: false });
    const record = makeDeliveryRecord();
    await store.insertDelivery(record);
    const [claim] = await queue.claim({ limit: 1, leaseMs: LEASE_MS, now: BASE_TIME });
    expect(await store.getDelivery(record.id)).toEqual(record);
    const saved = await store.updateDelivery(
      record.id,
      { attempt: 0, status: 'pending' },
      delivered(BASE_TIME),
    );
    expect(saved).toMatchObject({ status: 'success', attempt: 1 });
    expect(await store.getDelivery(record.id)).toEqual(saved);
    expect(await queueColumns(record.id)).toEqual({ run_at: null, claim_id: null });
    expect(await queue.ack(claim!)).toBe(true);
    expect(await queue.ack(claim!)).toBe(false);
  });

  it('recording a failed attempt on a held claim makes the entry due at nextRetryAt; reschedule agrees', async () => {
    const { store, queue } = createPgWebhooks({ pool, schema: db.schema, notify: false });
    const record = makeDeliveryRecord();
    await store.insertDelivery(record);
    const [claim] = await queue.claim({ limit: 1, leaseMs: LEASE_MS, now: BASE_TIME });
    await store.updateDelivery(
      record.id,
      { attempt: 0, status: 'pending' },
      retryAt(BASE_TIME, BASE_TIME + 60_000),
    );
    expect(await queue.reschedule(claim!, BASE_TIME + 60_000)).toBe(true);
    expect(await queue.claim({ limit: 1, leaseMs: LEASE_MS, now: BASE_TIME + 59_999 })).toEqual([]);
    const [again] = await queue.claim({ limit: 1, leaseMs: LEASE_MS, now: BASE_TIME + 60_000 });
    expect(again?.deliveryId).toBe(record.id);
    expect(again?.runAt).toBe(BASE_TIME + 60_000);
  });

  it('a claim another process has taken over is not settled by our record: our ack fails, theirs holds', async () => {
    const ours = createPgWebhooks({ pool, schema: db.schema, notify: false });
    const theirs = createPgWebhooks({ pool: otherProcess, schema: db.schema, notify: false });
    const record = makeDeliveryRecord();
    await ours.store.insertDelivery(record);
    const [stale] = await ours.queue.claim({ limit: 1, leaseMs: 1_000, now: BASE_TIME });
    const [live] = await theirs.queue.claim({ limit: 1, leaseMs: LEASE_MS, now: BASE_TIME + 1_000 });
    expect(live?.deliveryId).toBe(record.id);
    // Our (late) attempt still wins the compare-and-set, as nothing was recorded yet...
    expect(
      await ours.store.updateDelivery(record.id, { attempt: 0, status: 'pending' }, delivered(BASE_TIME)),
    ).not.toBeNull();
    // ...but the entry stays with the live claim.
    expect(await ours.queue.ack(stale!)).toBe(false);
    expect(await theirs.queue.renew(live!, LEASE_MS, BASE_TIME + 2_000)).toBe(true);
    expect(await theirs.queue.ack(live!)).toBe(true);
  });

  it('concurrent compare-and-sets are each decided on their own row, in one statement or many', async () => {
    const { store } = createPgWebhooks({ pool, schema: db.schema, notify: false });
    const records = Array.from({ length: 40 }, () => makeDeliveryRecord());
    for (const record of records) await store.insertDelivery(record);
    const results = await Promise.all(
      records.map((record, index) =>
        // Every other call carries a stale expectation and must lose.
        store.updateDelivery(
          record.id,
          { attempt: index % 2, status: 'pending' },
          delivered(BASE_TIME + index),
        ),
      ),
    );
    results.forEach((result, index) => {
      if (index % 2 === 0)
        expect(result).toMatchObject({ id: records[index]!.id, lastAttemptAt: BASE_TIME + index });
      else expect(result).toBeNull();
    });
  });

  it('two simultaneous compare-and-sets of one attempt: exactly one is recorded', async () => {
    const { store } = createPgWebhooks({ pool, schema: db.schema, notify: false });
    const record = makeDeliveryRecord();
    await store.insertDelivery(record);
    const expected = { attempt: 0, status: 'pending' } as const;
    const results = await Promise.all([
      store.updateDelivery(record.id, expected, delivered(BASE_TIME + 1)),
      store.updateDelivery(record.id, expected, delivered(BASE_TIME + 2)),
    ]);
    expect(results.filter((result) => result !== null)).toHaveLength(1);
  });

  it('concurrent config reads each get their own agency (or null)', async () => {
    const { store } = createPgWebhooks({ pool, schema: db.schema, notify: false });
    for (const agencyId of ['agency-1', 'agency-2']) {
      await store.upsertConfig({
        agencyId,
        webhookUrl: `https://${agencyId}.example/hooks`,
        enabled: true,
        subscribedEventTypes: ['job_created'],
        now: BASE_TIME,
        newId: `cfg-${agencyId}`,
        newSigningSecret: 'b'.repeat(64),
      });
    }
    const reads = await Promise.all(
      ['agency-2', 'agency-1', 'agency-3', 'agency-2'].map((agencyId) => store.getConfig(agencyId)),
    );
    expect(reads.map((config) => config?.webhookUrl ?? null)).toEqual([
      'https://agency-2.example/hooks',
      'https://agency-1.example/hooks',
      null,
      'https://agency-2.example/hooks',
    ]);
    expect(reads[0]).not.toBe(reads[3]);
  });
});
