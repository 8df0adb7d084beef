import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgWebhooks, ListenSilentError } from '../src/index';
import { createTestPool, createTestSchema, DATABASE_URL, describePg } from './pg-test-database';

const BASE_TIME = 1_700_000_000_000;
/** Far longer than any test may take: a wait that ends did so because of a NOTIFY. */
const NEVER_MS = 3_600_000;

/** Whether the promise has settled, checked after the event loop has had a chance to run. */
async function isSettled(promise: Promise<unknown>, graceMs = 200): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setTimeout(resolve, graceMs));
  return settled;
}

describePg('LISTEN/NOTIFY wake-ups', () => {
  const pool = createTestPool();
  const otherProcess = createTestPool();
  let schema = '';
  let drop = async () => {};
  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(pool));
  });
  afterAll(async () => {
    await drop();
    await Promise.all([pool.end(), otherProcess.end()]);
  });

  /** An idle worker's queue: it has claimed (and found nothing), so it is listening. */
  async function idleQueue() {
    const adapters = createPgWebhooks({ pool, schema });
    expect(await adapters.queue.claim({ limit: 1, leaseMs: 30_000, now: 0 })).toEqual([]);
    return adapters;
  }

  it('an insert on another connection wakes a waiting worker', async () => {
    const { queue, close } = await idleQueue();
    try {
      const waiting = queue.waitForWork({ timeoutMs: NEVER_MS });
      await createPgWebhooks({ pool: otherProcess, schema, notify: false }).store.insertDelivery(
        makeDeliveryRecord(),
      );
      await waiting;
    } finally {
      await close();
    }
  });

  it('a delivery written in a host transaction wakes workers only when that transaction commits', async () => {
    const { queue, close } = await idleQueue();
    const client = await otherProcess.connect();
    try {
      const waiting = queue.waitForWork({ timeoutMs: NEVER_MS });
      const { store } = createPgWebhooks({ pool: otherProcess, schema, notify: false });
      await client.query('BEGIN');
      await store.insertDelivery(makeDeliveryRecord(), { transaction: client });
      expect(await isSettled(waiting)).toBe(false);
      await client.query('COMMIT');
      await waiting;
    } finally {
      client.release();
      await close();
    }
  });

  it('a NOTIFY that arrives between an empty claim and the wait is not lost', async () => {
    const { queue, close } = await idleQueue();
    try {
      await createPgWebhooks({ pool: otherProcess, schema, notify: false }).store.insertDelivery(
        makeDeliveryRecord(),
      );
      // Give the notification time to arrive before the worker starts waiting.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await queue.waitForWork({ timeoutMs: NEVER_MS });
    } finally {
      await close();
    }
  });

  it('ack and a claim do not wake waiters; reschedule does', async () => {
    const record = makeDeliveryRecord({ nextRetryAt: BASE_TIME });
    const { store, queue, close } = createPgWebhooks({ pool, schema });
    try {
      await store.insertDelivery(record);
      const claims = await queue.claim({
        limit: 100,
        leaseMs: 30_000,
        now: BASE_TIME + 3_600_000 * 24 * 365 * 50,
      });
      const claim = claims.find((each) => each.deliveryId === record.id)!;
      const waiting = queue.waitForWork({ timeoutMs: NEVER_MS });
      expect(await isSettled(waiting)).toBe(false);
      expect(await queue.reschedule(claim, BASE_TIME)).toBe(true);
      await waiting;
      const [again] = await queue.claim({ limit: 1, leaseMs: 30_000, now: BASE_TIME });
      const next = queue.waitForWork({ timeoutMs: NEVER_MS });
      expect(await queue.ack(again!)).toBe(true);
      expect(await isSettled(next)).toBe(false);
      await close();
      await next;
    } finally {
      await close();
    }
  });

  it('a dropped LISTEN connection wakes waiters, and the queue listens again on its next claim', async () => {
    const { queue, close } = await idleQueue();
    try {
      const waiting = queue.waitForWork({ timeoutMs: NEVER_MS });
      await pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
        [`LISTEN "svc_webhooks:${schema}"`],
      );
      await waiting;
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // the reconnect back-off
      expect(await queue.claim({ limit: 1, leaseMs: 30_000, now: 0 })).toEqual([]);
      const woken = queue.waitForWork({ timeoutMs: NEVER_MS });
      await createPgWebhooks({ pool: otherProcess, schema, notify: false }).store.insertDelivery(
        makeDeliveryRecord(),
      );
      await woken;
    } finally {
      await close();
    }
  });

  it('close() gives the LISTEN connection up and never ends the injected pool', async () => {
    const listeners = async () => {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1`, [
        `LISTEN "svc_webhooks:${schema}"`,
      ]);
      return rows[0].n as number;
    };
    // The server ends the backend of a closed connection a moment later, so the
    // earlier tests' listeners may still be counted for a while: wait them out first.
    const allGone = async () => {
      while ((await listeners()) !== 0) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await allGone();
    const { close } = await idleQueue();
    try {
      expect(await listeners()).toBe(1);
    } finally {
      await close();
    }
    await close();
    await allGone();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('a LISTEN that cannot hear the pool (another database) is reported once and the queue polls', async () => {
    const elsewhere = new URL(DATABASE_URL);
    elsewhere.pathname = '/postgres';
    const reports: unknown[] = [];
    const { queue, close } = createPgWebhooks({
      pool,
      schema,
      listen: elsewhere.toString(),
      onError: (error) => reports.push(error),
    });
    try {
      // The first claim waits for the LISTEN's own notification, which goes to the pool's database.
      expect(await queue.claim({ limit: 1, leaseMs: 30_000, now: 0 })).toEqual([]);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toBeInstanceOf(ListenSilentError);
      expect(reports[0]).toMatchObject({ code: 'listen_silent' });
      expect((reports[0] as Error).message).toContain('`listen`');
      expect(queue.capabilities.wakeups).toBe(false);
      // Waits poll instead of waiting for a NOTIFY that cannot come.
      expect(await isSettled(queue.waitForWork({ timeoutMs: NEVER_MS }), 500)).toBe(true);
      await queue.claim({ limit: 1, leaseMs: 30_000, now: 0 });
      expect(reports, 'reported once').toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('with `listen` on a direct connection string, a NOTIFY from the pool wakes the waiter', async () => {
    const { queue, close } = createPgWebhooks({ pool, schema, listen: DATABASE_URL });
    try {
      expect(await queue.claim({ limit: 1, leaseMs: 30_000, now: 0 })).toEqual([]);
      expect(queue.capabilities.wakeups).toBe(true);
      const waiting = queue.waitForWork({ timeoutMs: NEVER_MS });
      expect(await isSettled(waiting)).toBe(false);
      await createPgWebhooks({ pool: otherProcess, schema, notify: false }).store.insertDelivery(
        makeDeliveryRecord(),
      );
      await waiting;
    } finally {
      await close();
    }
  });

  it('with notify: false the queue declares no wake-ups and opens no LISTEN connection', async () => {
    const { queue } = createPgWebhooks({ pool, schema, notify: false });
    expect(queue.capabilities.wakeups).toBe(false);
    const idleBefore = pool.totalCount;
    await queue.claim({ limit: 1, leaseMs: 30_000, now: 0 });
    await queue.waitForWork({ timeoutMs: 1 });
    expect(pool.totalCount).toBeLessThanOrEqual(idleBefore + 1);
  });
});
