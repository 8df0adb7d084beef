import { makeDeliveryRecord } from '../../packages/core/src/testing/delivery-record-builder';
import { createPgWebhooks, migrate } from '@svc/webhooks-pg';
import pg from 'pg';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/test', max: 16 });
const schema = 'micro_cycle';
await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
await migrate(pool, { schema });
const { store, queue } = createPgWebhooks(pool, { schema, notify: false });
const N = 10000;
const now = 1_700_000_000_000;
await pool.query(`INSERT INTO ${schema}.webhook_deliveries (id, agency_id, event_id, event_type, entity_type, payload, created_on, created_at, status, attempt, max_attempts, next_retry_at, run_at)
SELECT 'd-' || lpad(n::text, 7, '0'), 'agency-' || (n % 100), 'evt-' || n, 'job_created', 'job', '{"a":1}', $1, $1, 'pending', 0, 5, $1, $1 FROM generate_series(1, $2) n`, [now, N]);
const mode = process.argv[2] ?? 'full';
let t = performance.now();
let done = 0;
await Promise.all(Array.from({ length: 8 }, async () => {
  for (;;) {
    const claims = await queue.claim({ limit: 8, leaseMs: 30000, now });
    if (claims.length === 0) return;
    await Promise.all(claims.map(async (c) => {
      if (mode === 'full') {
        const r = await store.getDelivery(c.deliveryId);
        await store.getConfig(c.agencyId);
        await store.updateDelivery(c.deliveryId, { attempt: 0, status: 'pending' }, { status: 'success', attempt: 1, maxAttempts: 5, nextRetryAt: null, lastAttemptAt: now, deliveredAt: now, lastResponseCode: 200, lastErrorMessage: null, lastResponseExcerpt: 'ok' });
      }
      await queue.ack(c);
      done++;
    }));
  }
}));
console.log(mode, 'cycle/s', (done / (performance.now() - t)) * 1000);
await pool.end();
