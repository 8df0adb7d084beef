import { createWebhookService, createWorker, type WebhookServiceOptions } from '@svc/webhooks-core';
import { createPgWebhooks, migrate } from '@svc/webhooks-pg';
import pg from 'pg';

/** Settings every process passes (API and workers alike), so they agree on retries, URL rules and events. */
export type SharedWebhookOptions = Omit<WebhookServiceOptions, 'store' | 'queue'>;

/**
 * The entry point of a worker process. Start as many as the load needs, on as
 * many machines as you like: they share one PostgreSQL queue, and each due
 * delivery is leased to one worker at a time.
 */
export async function startWorkerProcess(databaseUrl: string, schema: string, shared: SharedWebhookOptions) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  await migrate({ pool, schema }); // safe from every process at once: migrations take a lock
  const adapters = createPgWebhooks({ pool, schema });
  const webhooks = createWebhookService({ ...shared, store: adapters.store, queue: adapters.queue });
  const worker = createWorker(webhooks); // 512 attempts in flight, 8 per agency: see the isolation section
  await worker.start();

  async function shutdown(): Promise<void> {
    await worker.stop(); // claims nothing new; waits until the attempts in flight are recorded
    await webhooks.close();
    await adapters.close();
    await pool.end();
  }
  process.once('SIGTERM', () => void shutdown());
  return { webhooks, worker, shutdown };
}

/** Pending deliveries in a schema: one indexed count, e.g. for the OpenTelemetry pending gauge. */
export async function countPendingDeliveries(pool: pg.Pool, schema: string): Promise<number> {
  const { rows } = await pool.query<{ pending: string }>(
    `SELECT count(*) AS pending FROM ${pg.escapeIdentifier(schema)}.webhook_deliveries WHERE status = 'pending'`,
  );
  return Number(rows[0]?.pending ?? 0);
}
