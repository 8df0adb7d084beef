import { createWebhookService, type WebhookService } from '@svc/webhooks-core';
import type pg from 'pg';
import { createPgWebhooks, type PgWebhooks } from '../../packages/pg/src/index';

/** A service on the PostgreSQL adapters of `schema`, trusting the local receiver's certificate. */
export function createBenchService(
  pool: pg.Pool,
  schema: string,
  ca: string,
): { webhooks: WebhookService; adapters: PgWebhooks } {
  const adapters = createPgWebhooks({ pool, schema });
  const webhooks = createWebhookService({
    store: adapters.store,
    queue: adapters.queue,
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca } },
  });
  return { webhooks, adapters };
}

/** `agency-0` … `agency-(count-1)`, each subscribed to `job_cancelled` at `url`. */
export async function configureAgencies(
  webhooks: WebhookService,
  count: number,
  url: string,
): Promise<string[]> {
  const agencies = Array.from({ length: count }, (_, index) => `agency-${index}`);
  for (const agencyId of agencies) {
    await webhooks.putConfig(agencyId, {
      webhookUrl: url,
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
    });
  }
  return agencies;
}

/** The event of delivery number `n` (the same shape the pg-boss side sends). */
export function cancelledJob(agencyId: string, n: number) {
  return {
    agencyId,
    eventType: 'job_cancelled' as const,
    entityId: `job-${n}`,
    metadata: { jobId: `job-${n}`, agencyId, jobNumber: n, reason: 'Tenant cancelled the visit' },
  };
}

/** Resolves once `read()` reaches `target`, checking every few ms. */
export async function waitForCount(read: () => Promise<number>, target: number): Promise<void> {
  while ((await read()) < target) await new Promise((resolve) => setTimeout(resolve, 5));
}
