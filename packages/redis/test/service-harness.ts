import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import {
  createWebhookService,
  createWorker,
  type DeliveryQueue,
  type DeliveryStatus,
  type WebhookService,
  type WebhookStore,
  type WebhookWorker,
  type WorkerOptions,
} from '@svc/webhooks-core';

/** Quick retries without jitter: five attempts finish in well under a second. */
export const FAST_RETRY = { schedule: [20, 20, 20, 20], jitterRatio: 0 };

/** A service on the given store and queue, one worker, and a real local HTTPS receiver. */
export interface ServiceHarness {
  webhooks: WebhookService;
  worker: WebhookWorker;
  receiver: TestReceiver;
  /** Points the agency's configuration at the receiver (subscribed to `job_cancelled`). */
  configure(agencyId: string): Promise<void>;
  /** Polls the delivery log until the delivery has `status`; fails after 15 s. */
  waitForStatus(agencyId: string, deliveryId: string, status: DeliveryStatus): Promise<void>;
  /** Delivery ids (from `X-Service-Webhook-Id`) of every request received, in arrival order. */
  receivedIds(): string[];
  close(): Promise<void>;
}

export async function startServiceHarness(
  adapters: { store: WebhookStore; queue: DeliveryQueue },
  workerOptions: WorkerOptions = {},
): Promise<ServiceHarness> {
  const receiver = await startTestReceiver();
  const webhooks = createWebhookService({
    ...adapters,
    // Only tests may reach 127.0.0.1: the receiver lives there.
    urlPolicy: { allowPrivateNetworks: true },
    retry: FAST_RETRY,
    transport: { tls: { ca: receiver.ca }, timeoutMs: 5_000 },
  });
  const worker = createWorker(webhooks, { pollIntervalMs: 50, recoverySweep: false, ...workerOptions });
  await worker.start();
  return {
    webhooks,
    worker,
    receiver,
    async configure(agencyId) {
      await webhooks.putConfig(agencyId, {
        webhookUrl: receiver.url,
        enabled: true,
        subscribedEventTypes: ['job_cancelled'],
      });
    },
    async waitForStatus(agencyId, deliveryId, status) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const delivery = await webhooks.getDelivery(agencyId, deliveryId);
        if (delivery.status === status) return;
        if (Date.now() > deadline)
          throw new Error(`Delivery ${deliveryId} is ${delivery.status}, not ${status}.`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    receivedIds() {
      return receiver.requests.map((request) => String(request.headers['x-service-webhook-id']));
    },
    async close() {
      await worker.stop();
      await webhooks.close();
      await receiver.close();
    },
  };
}

/** A valid `job_cancelled` event of the agency. */
export function jobCancelled(agencyId: string, jobNumber: number) {
  return {
    agencyId,
    eventType: 'job_cancelled' as const,
    entityId: `job-${jobNumber}`,
    createdById: 'agent-1',
    createdByRole: 'Agent' as const,
    metadata: { jobId: `job-${jobNumber}`, agencyId, jobNumber, reason: 'Tenant withdrew the request' },
  };
}
