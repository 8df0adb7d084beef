import { randomUUID } from 'node:crypto';
import { createMemoryStore, type WebhookStore } from '@svc/webhooks-core';

/** One agency's webhook configuration in a benchmark: where its deliveries go. */
export interface BenchConfig {
  agencyId: string;
  webhookUrl: string;
}

/**
 * A fresh in-memory store holding an enabled configuration, subscribed to `job_cancelled` and signing
 * with `secret`, for each of `configs`. Every engine measurement starts from one, so no measurement
 * carries the records of the ones before it.
 */
export async function configuredMemoryStore(
  configs: readonly BenchConfig[],
  secret: string,
): Promise<WebhookStore> {
  const store = createMemoryStore();
  for (const { agencyId, webhookUrl } of configs) {
    await store.upsertConfig({
      agencyId,
      webhookUrl,
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
      now: Date.now(),
      newId: randomUUID(),
      newSigningSecret: secret,
    });
  }
  return store;
}

/** The `job_cancelled` event number `i` of `agencyId`, as the benchmarks emit it. */
export function jobCancelled(agencyId: string, i: number) {
  return {
    agencyId,
    eventType: 'job_cancelled' as const,
    entityId: `job-${i}`,
    createdByRole: 'Agent' as const,
    createdById: 'agent-1',
    metadata: { jobId: `job-${i}`, agencyId, jobNumber: i, reason: 'Tenant withdrew the request' },
  };
}
