import { hostResolver, startTestReceiver, type TestReceiver } from '@svc/test-support';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  createWorker,
  type DeliveryDetail,
  type DeliveryStatus,
  type WebhookService,
  type WebhookServiceOptions,
  type WebhookWorker,
  type WorkerOptions,
} from '../src/index';

/** A service on the memory adapters, a worker and a real local HTTPS receiver. */
export interface DeliveryHarness {
  webhooks: WebhookService;
  worker: WebhookWorker;
  receiver: TestReceiver;
  /** Creates agency's configuration pointing at the receiver; returns the full secret. */
  configure(agencyId: string, eventTypes?: string[], path?: string): Promise<string>;
  /** Polls until the delivery reaches `status` (fails the test after 10 s). */
  waitForStatus(agencyId: string, deliveryId: string, status: DeliveryStatus): Promise<DeliveryDetail>;
  close(): Promise<void>;
}

/** Four quick retries, no jitter: five attempts finish in well under a second. */
export const FAST_RETRY = { schedule: [20, 20, 20, 20], jitterRatio: 0 };

export async function startDeliveryHarness(
  overrides: Partial<WebhookServiceOptions> = {},
  workerOptions: WorkerOptions = {},
): Promise<DeliveryHarness> {
  const receiver = await startTestReceiver();
  const webhooks = createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    // Only tests may reach 127.0.0.1: the receiver lives there.
    urlPolicy: { allowPrivateNetworks: true, resolve: hostResolver({ 'hooks.test': '127.0.0.1' }) },
    retry: FAST_RETRY,
    ...overrides,
    transport: { tls: { ca: receiver.ca }, timeoutMs: 2000, ...overrides.transport },
  });
  const worker = createWorker(webhooks, { pollIntervalMs: 20, ...workerOptions });
  await worker.start();
  return {
    webhooks,
    worker,
    receiver,
    async configure(agencyId, eventTypes = ['job_cancelled'], path = '/hooks') {
      const config = await webhooks.putConfig(agencyId, {
        webhookUrl: receiver.urlFor(path),
        enabled: true,
        subscribedEventTypes: eventTypes,
      });
      return config.signingSecret;
    },
    async waitForStatus(agencyId, deliveryId, status) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const delivery = await webhooks.getDelivery(agencyId, deliveryId);
        if (delivery.status === status) return delivery;
        if (Date.now() > deadline) {
          throw new Error(`Delivery ${deliveryId} is ${delivery.status} after 10 s; expected ${status}.`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      await worker.stop();
      await webhooks.close();
      await receiver.close();
    },
  };
}

/** A valid `job_cancelled` event for the agency. */
export function jobCancelled(agencyId: string, jobNumber = 7, extra: Record<string, unknown> = {}) {
  return {
    agencyId,
    eventType: 'job_cancelled' as const,
    entityId: `job-${jobNumber}`,
    createdById: 'agent-1',
    createdByRole: 'Agent' as const,
    metadata: { jobId: `job-${jobNumber}`, agencyId, jobNumber, reason: 'Tenant withdrew the request' },
    ...extra,
  };
}
