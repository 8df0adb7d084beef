import { createMemoryQueue, createMemoryStore, createWebhookService, createWorker } from '@svc/webhooks-core';

// One service per process. The memory store and queue keep everything in this
// process: fine for a first try, not for deliveries you cannot afford to lose.
export const webhooks = createWebhookService({
  store: createMemoryStore(),
  queue: createMemoryQueue(),
  // Development only: lets deliveries reach http://localhost. Remove in production.
  urlPolicy: { allowHttp: true, allowPrivateNetworks: true },
});

/** Once per agency. The signing secret is returned in full only now: hand it over once. */
export async function connectAgency(agencyId: string, webhookUrl: string): Promise<string> {
  const config = await webhooks.putConfig(agencyId, {
    webhookUrl,
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
  });
  return config.signingSecret;
}

/** Wherever your application cancels a job: records a delivery and queues it, no network I/O. */
export async function onJobCancelled(agencyId: string, jobId: string, jobNumber: number, reason: string) {
  return webhooks.emit({
    agencyId,
    eventType: 'job_cancelled',
    entityId: jobId,
    metadata: { jobId, agencyId, jobNumber, reason },
  });
}

// In every process that should send: claims due deliveries, signs, sends, retries.
export const worker = createWorker(webhooks);
await worker.start();
process.once('SIGTERM', () => void worker.stop()); // finishes the attempts in flight, then stops
