import {
  createEventCatalogue,
  createWebhookService,
  createWorker,
  type DeliveryQueue,
  type DeliveryRecord,
  type WebhookLogger,
  type WebhookStore,
} from '@svc/webhooks-core';

/** What the host provides; everything else below is a setting. */
export interface WebhookDependencies {
  store: WebhookStore;
  queue: DeliveryQueue;
  logger: WebhookLogger;
  alertOnFailure: (delivery: DeliveryRecord) => void;
}

export function createConfiguredWebhooks({ store, queue, logger, alertOnFailure }: WebhookDependencies) {
  const webhooks = createWebhookService({
    store,
    queue,
    events: createEventCatalogue(), // the eight built-in event types; add yours with defineEvent
    urlPolicy: { lookupTimeoutMs: 2_000 }, // https only and public addresses only: the defaults
    retry: {
      maxAttempts: 8,
      schedule: [30_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000], // 30 s … 12 h
      jitterRatio: 0.1,
      maxRetryAfterMs: 3_600_000, // honour a receiver's Retry-After up to one hour
    },
    transport: { timeoutMs: 5_000, connectionsPerOrigin: 16, userAgent: 'acme-webhooks/1.0' },
    hooks: { onFailed: alertOnFailure },
    logger,
  });
  const worker = createWorker(webhooks, {
    concurrency: 64,
    perAgencyConcurrency: 4,
    leaseMs: 30_000,
    pollIntervalMs: 500,
    recoverySweep: { intervalMs: 60_000, graceMs: 900_000 },
  });
  return { webhooks, worker };
}
