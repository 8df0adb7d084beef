import {
  createWebhookService,
  type DeliveryQueue,
  type WebhookCircuitEvent,
  type WebhookStore,
} from '@svc/webhooks-core';

/**
 * A service tuned for receivers that are usually slow to recover: the breaker
 * opens after 3 failures in a row, probes after a minute, then backs off to at
 * most 30 minutes; agencies may send 5 tests a minute.
 */
export function createPatientWebhooks(
  store: WebhookStore,
  queue: DeliveryQueue,
  onReceiverDown: (agencyId: string, until: number) => void,
) {
  return createWebhookService({
    store,
    queue,
    circuitBreaker: { failureThreshold: 3, openMs: 60_000, maxOpenMs: 1_800_000 },
    testSendLimit: { max: 5, perMs: 60_000 },
    transport: { connectTimeoutMs: 3_000, maxPools: 4_096, maxSockets: 8_192 },
    hooks: {
      onCircuitChange({ circuit }: WebhookCircuitEvent) {
        if (circuit.status === 'open') onReceiverDown(circuit.agencyId, circuit.openUntil ?? Date.now());
      },
    },
  });
}
