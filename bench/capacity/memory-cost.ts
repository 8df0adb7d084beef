import type { ReceiverProcess } from '@svc/test-support';
import { createMemoryQueue, createMemoryStore, createWebhookService } from '@svc/webhooks-core';
import { configureAgencies } from '../pg/svc-setup';
import { type Regime, runRegime } from './delivery-regime';
import { ownCpuSeconds } from './process-cpu';

/** One measured run on the memory adapters: this process's CPU for `deliveries` deliveries. */
export interface MemoryCostRun {
  regime: Regime;
  deliveries: number;
  processCpuSeconds: number;
  wallSeconds: number;
}

/**
 * The same deliveries as the pg and Redis cost runs, on the memory store and
 * queue: what emitting, signing, sending and recording cost the process with no
 * database client at all, the floor under the other two.
 */
export async function measureMemoryCost(
  receiver: ReceiverProcess,
  regime: Regime,
  agencyCount: number,
  perAgency: number,
): Promise<MemoryCostRun> {
  const webhooks = createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: receiver.ca } },
  });
  try {
    const agencies = await configureAgencies(webhooks, agencyCount, receiver.url);
    const received = async () => (await receiver.stats()).received;
    await runRegime({
      webhooks,
      agencies,
      perAgency: 5,
      regime,
      received,
      meter: { snapshot: async () => null },
    });
    const meter = { snapshot: async () => ownCpuSeconds() };
    const run = await runRegime({ webhooks, agencies, perAgency, regime, received, meter });
    return {
      regime,
      deliveries: agencies.length * perAgency,
      processCpuSeconds: run.end - run.start,
      wallSeconds: run.wallSeconds,
    };
  } finally {
    await webhooks.close();
  }
}
