import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  createWorker,
  type DeliveryDetail,
  type DeliveryQueue,
  type DeliveryStatus,
  type EndpointHealth,
  type WebhookService,
  type WebhookServiceOptions,
  type WebhookStore,
  type WebhookWorker,
  type WorkerOptions,
} from '@svc/webhooks-core';
import { hostResolver } from './host-resolver';
import { startTestReceiver, type TestReceiver } from './receiver';

/** Four quick retries without jitter: five attempts finish in well under a second. */
export const FAST_RETRY = { schedule: [20, 20, 20, 20], jitterRatio: 0 };

/**
 * A circuit breaker on the scale of {@link FAST_RETRY}: it still opens after five
 * failures in a row, but probes after 50 ms instead of 30 s.
 */
export const FAST_CIRCUIT = { openMs: 50, maxOpenMs: 200 };

/** How long {@link ServiceHarness.waitForStatus} polls before it fails the test, in ms. */
const STATUS_TIMEOUT_MS = 15_000;

/** Options of {@link startServiceHarness}. */
export interface ServiceHarnessOptions {
  /**
   * Makes the store, called once. The harness never closes it: the test owns
   * what its factory returns.
   * @default createMemoryStore
   */
  store?: () => WebhookStore;
  /**
   * Makes the queue, called once; as with `store`, the test closes it.
   * @default createMemoryQueue
   */
  queue?: () => DeliveryQueue;
  /**
   * Service options over the harness's (receiver CA, {@link FAST_RETRY}, {@link FAST_CIRCUIT}, private
   * networks allowed, `hooks.test` resolving to 127.0.0.1). Each replaces the
   * harness's option of that name, except `transport`, which is merged.
   */
  service?: Partial<Omit<WebhookServiceOptions, 'store' | 'queue'>>;
  /**
   * Worker options.
   * @default { pollIntervalMs: 20 }
   */
  worker?: WorkerOptions;
}

/** A service on a store and queue, one started worker, and a real local HTTPS receiver. */
export interface ServiceHarness {
  webhooks: WebhookService;
  worker: WebhookWorker;
  receiver: TestReceiver;
  /** Points the agency's configuration at the receiver (at `path`); resolves with the full signing secret. */
  configure(agencyId: string, eventTypes?: string[], path?: string): Promise<string>;
  /** Polls the delivery log until the delivery has `status`; fails the test after 15 s. */
  waitForStatus(agencyId: string, deliveryId: string, status: DeliveryStatus): Promise<DeliveryDetail>;
  /**
   * Polls the agency's endpoint health until `done` holds; fails the test after 15 s. An attempt's
   * breaker write lands after its delivery's status, so a test that moves the clock after a failed
   * attempt waits here for it first.
   */
  waitForHealth(agencyId: string, done: (health: EndpointHealth) => boolean): Promise<EndpointHealth>;
  /** Webhook ids (`X-Service-Webhook-Id`, `whdel_…`) of every request received, in arrival order. */
  receivedIds(): string[];
  /** Stops the worker, closes the service and the receiver (never the store or queue). */
  close(): Promise<void>;
}

/**
 * Starts a receiver, a service on the given store and queue (memory ones by
 * default), and a worker. Only tests may reach 127.0.0.1, where the receiver
 * lives, so the harness turns `allowPrivateNetworks` on.
 *
 * @example
 * ```ts
 * const harness = await startServiceHarness({ queue: () => createRedisQueue({ redis, prefix }) });
 * await harness.configure('agency-a');
 * const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
 * await harness.waitForStatus('agency-a', emitted!.deliveryId, 'success');
 * ```
 */
export async function startServiceHarness(options: ServiceHarnessOptions = {}): Promise<ServiceHarness> {
  const receiver = await startTestReceiver();
  const service = options.service ?? {};
  const webhooks = createWebhookService({
    store: options.store?.() ?? createMemoryStore(),
    queue: options.queue?.() ?? createMemoryQueue(),
    urlPolicy: { allowPrivateNetworks: true, resolve: hostResolver({ 'hooks.test': '127.0.0.1' }) },
    retry: FAST_RETRY,
    circuitBreaker: FAST_CIRCUIT,
    ...service,
    transport: { tls: { ca: receiver.ca }, timeoutMs: 5_000, ...service.transport },
  });
  const worker = createWorker(webhooks, { pollIntervalMs: 20, ...options.worker });
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
    waitForStatus: (agencyId, deliveryId, status) => pollStatus(webhooks, agencyId, deliveryId, status),
    async waitForHealth(agencyId, done) {
      const deadline = Date.now() + STATUS_TIMEOUT_MS;
      for (;;) {
        const health = await webhooks.getEndpointHealth(agencyId);
        if (done(health)) return health;
        if (Date.now() > deadline) {
          throw new Error(
            `Endpoint health of ${agencyId} after ${STATUS_TIMEOUT_MS / 1000} s: ${JSON.stringify(health)}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
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

async function pollStatus(
  webhooks: WebhookService,
  agencyId: string,
  deliveryId: string,
  status: DeliveryStatus,
): Promise<DeliveryDetail> {
  const deadline = Date.now() + STATUS_TIMEOUT_MS;
  for (;;) {
    const delivery = await webhooks.getDelivery(agencyId, deliveryId);
    if (delivery.status === status) return delivery;
    if (Date.now() > deadline) {
      throw new Error(
        `Delivery ${deliveryId} is ${delivery.status} after ${STATUS_TIMEOUT_MS / 1000} s; expected ${status}.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A valid `job_cancelled` event of the agency; `extra` adds or replaces emit fields (`eventId`, `createdOn`…). */
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
