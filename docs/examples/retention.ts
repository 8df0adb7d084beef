import {
  createWebhookService,
  createWorker,
  type DeliveryQueue,
  type WebhookStore,
} from '@svc/webhooks-core';

const DAY_MS = 86_400_000;

/** A service and its worker with retention spelled out (these are the defaults, except where given). */
export function createRetainingWebhooks(store: WebhookStore, queue: DeliveryQueue, purgeEveryMs = 60_000) {
  const webhooks = createWebhookService({
    store,
    queue,
    // A success is kept 30 days, a failure 90, both counted from the delivery's `createdAt`;
    // a finished bulk recovery as long as a failure, counted from its `completedAt`.
    retention: { successMs: 30 * DAY_MS, failedMs: 90 * DAY_MS },
  });
  // A round every `purgeEveryMs` (default a minute), at most 500 deliveries per store call.
  const worker = createWorker(webhooks, { retentionPurge: { intervalMs: purgeEveryMs, batchSize: 500 } });
  return { webhooks, worker };
}
