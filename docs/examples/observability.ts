import {
  combineHooks,
  createWebhookService,
  createWorker,
  type DeliveryQueue,
  type WebhookLogger,
  type WebhookStore,
} from '@svc/webhooks-core';
import { createOpenTelemetryHooks, observeWorker } from '@svc/webhooks-core/otel';

/**
 * A service that logs (pino or any logger with the same methods) and reports
 * OpenTelemetry spans and metrics through whatever SDK the host registered.
 */
export function createObservedWebhooks(
  store: WebhookStore,
  queue: DeliveryQueue,
  logger: WebhookLogger,
  countPending: () => Promise<number>,
) {
  const webhooks = createWebhookService({
    store,
    queue,
    logger,
    hooks: combineHooks(createOpenTelemetryHooks({ countPending }), {
      onFailed: (delivery) =>
        logger.info({ deliveryId: delivery.id }, 'agency notified of a failed delivery'),
    }),
  });
  const worker = createWorker(webhooks);
  const stopObserving = observeWorker(worker);
  return { webhooks, worker, stopObserving };
}
