import {
  createMemoryQueue,
  createWebhookService,
  createWorker,
  type WebhookPurgeEvent,
  type WebhookWorker,
} from '@svc/webhooks-core';
import type pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { createPgStore } from '../src/index';
import { createTestPool, describePg, useTestSchema } from './pg-test-database';

const DAY_MS = 86_400_000;
const NOW = 1_800_000_000_000;
const OLD_SUCCESS = 6_000;
const OLD_FAILED = 1_500;
const BATCH = 1_000;

/** Every DELETE the store sends, with how many rows it deleted. */
function recordingDeletes(pool: pg.Pool): { pool: pg.Pool; deletes: number[] } {
  const deletes: number[] = [];
  const recording = new Proxy(pool, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== 'query') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: Parameters<pg.Pool['query']>) => {
        const result = await (target.query as (...a: unknown[]) => Promise<pg.QueryResult>)(...args);
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text;
        if (text?.trimStart().startsWith('DELETE')) deletes.push(result.rowCount ?? 0);
        return result;
      };
    },
  });
  return { pool: recording, deletes };
}

describePg('retention on PostgreSQL', () => {
  const pool = createTestPool();
  const db = useTestSchema(pool);
  const workers: WebhookWorker[] = [];
  const errors: unknown[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    expect(errors, 'worker errors').toEqual([]);
    errors.length = 0;
  });

  /**
   * Old successes (40 days) and failures (100 days) with an attempt each, young
   * failures (40 days) the default retention keeps, and ancient pending rows.
   */
  async function load(): Promise<void> {
    const table = `"${db.schema}".webhook_deliveries`;
    await pool.query(
      `INSERT INTO ${table}
         (id, agency_id, event_id, event_type, entity_type, payload, created_on, created_at, status, attempt, max_attempts)
       SELECT 'r-' || lpad(n::text, 6, '0'), 'agency-' || (n % 7), 'evt-' || n, 'job_created', 'job', '{}', at, at,
              CASE WHEN n <= ${OLD_SUCCESS} THEN 'success' WHEN n <= ${OLD_SUCCESS + OLD_FAILED} THEN 'failed'
                   WHEN n <= ${OLD_SUCCESS + OLD_FAILED + 500} THEN 'failed' ELSE 'pending' END, 1, 5
         FROM generate_series(1, ${OLD_SUCCESS + OLD_FAILED + 1000}) AS n,
              LATERAL (SELECT CASE WHEN n <= ${OLD_SUCCESS} THEN ${NOW}::bigint - 40 * ${DAY_MS}::bigint
                                   WHEN n <= ${OLD_SUCCESS + OLD_FAILED} THEN ${NOW}::bigint - 100 * ${DAY_MS}::bigint
                                   WHEN n <= ${OLD_SUCCESS + OLD_FAILED + 500} THEN ${NOW}::bigint - 40 * ${DAY_MS}::bigint
                                   ELSE ${NOW}::bigint - 400 * ${DAY_MS}::bigint END AS at) AS t`,
    );
    await pool.query(
      `INSERT INTO "${db.schema}".webhook_attempts (delivery_id, attempt, trigger, started_at, duration_ms, response_code)
       SELECT id, 1, 'automatic', created_at, 10, 200 FROM ${table} WHERE status <> 'pending'`,
    );
  }

  async function counts(): Promise<Record<string, number>> {
    const { rows } = await pool.query(
      `SELECT status, count(*)::int AS n FROM "${db.schema}".webhook_deliveries GROUP BY 1 ORDER BY 1`,
    );
    const attempts = await pool.query(`SELECT count(*)::int AS n FROM "${db.schema}".webhook_attempts`);
    return { ...Object.fromEntries(rows.map((row) => [row.status, row.n])), attempts: attempts.rows[0].n };
  }

  function startWorker(target: pg.Pool, purges: WebhookPurgeEvent[]): Promise<void> {
    const webhooks = createWebhookService({
      store: createPgStore({ pool: target, schema: db.schema }),
      // The pending rows carry no queue entry: nothing to claim, only the purge runs.
      queue: createMemoryQueue(),
      clock: () => NOW,
      hooks: { onPurge: (event) => purges.push(event), onError: (error) => errors.push(error) },
    });
    const worker = createWorker(webhooks, {
      recoverySweep: false,
      retentionPurge: { intervalMs: 20, batchSize: BATCH },
    });
    workers.push(worker);
    return worker.start();
  }

  it('a worker drains thousands of expired rows in DELETEs of at most batchSize, attempts with them', async () => {
    await load();
    const { pool: recording, deletes } = recordingDeletes(pool);
    const purges: WebhookPurgeEvent[] = [];
    await startWorker(recording, purges);
    await expect.poll(() => purges.length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(purges[0]).toMatchObject({ success: OLD_SUCCESS, failed: OLD_FAILED });
    expect(Math.max(...deletes), 'no DELETE larger than a batch').toBe(BATCH);
    // 6 full + 1 empty for successes, 1 full + 1 short for failures, 1 empty for recoveries.
    expect(purges[0]?.batches).toBe(OLD_SUCCESS / BATCH + 1 + Math.ceil(OLD_FAILED / BATCH) + 1);
    expect(await counts()).toEqual({ failed: 500, pending: 500, attempts: 500 });
  });

  it('several workers purging at once share the rows: each deleted once, none left, no errors', async () => {
    await load();
    const purges: WebhookPurgeEvent[] = [];
    await Promise.all([startWorker(pool, purges), startWorker(pool, purges), startWorker(pool, purges)]);
    await expect.poll(async () => (await counts()).success ?? 0, { timeout: 20_000 }).toBe(0);
    await expect.poll(async () => (await counts()).failed, { timeout: 20_000 }).toBe(500);
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    const total = (field: 'success' | 'failed') => purges.reduce((sum, event) => sum + event[field], 0);
    expect([total('success'), total('failed')]).toEqual([OLD_SUCCESS, OLD_FAILED]);
    expect(await counts()).toEqual({ failed: 500, pending: 500, attempts: 500 });
  });
});
