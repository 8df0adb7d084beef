import { FAST_RETRY, jobCancelled, startServiceHarness } from '@svc/test-support';
import { createMemoryQueue, createMemoryStore } from '@svc/webhooks-core';
import { expect, it } from 'vitest';
import { agencyNotifications, createNotifyingWebhooks } from '../examples/endpoint-health';

it('docs/examples/endpoint-health.ts: the agency hears that its endpoint fails, then that it was disabled', async () => {
  const told: Array<[string, string]> = [];
  let offset = 0;
  const harness = await startServiceHarness({
    service: {
      retry: { ...FAST_RETRY, maxAttempts: 1 },
      clock: () => Date.now() + offset,
      hooks: agencyNotifications(async (agencyId, subject) => {
        told.push([agencyId, subject]);
      }),
    },
  });
  try {
    harness.receiver.respond(() => ({ status: 500 }));
    await harness.configure('agency-a');
    const first = await harness.webhooks.emit(jobCancelled('agency-a', 1));
    await harness.waitForStatus('agency-a', first?.deliveryId as string, 'failed');
    offset = 432_000_000;
    const second = await harness.webhooks.emit(jobCancelled('agency-a', 2));
    await harness.waitForStatus('agency-a', second?.deliveryId as string, 'failed');
    await harness.worker.stop();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(told).toEqual([
      ['agency-a', 'Webhook deliveries are failing'],
      ['agency-a', 'Webhook endpoint disabled'],
    ]);
  } finally {
    await harness.close();
  }
});

it('docs/examples/endpoint-health.ts: createNotifyingWebhooks builds a service (its autoDisable option is valid)', async () => {
  const webhooks = createNotifyingWebhooks(createMemoryStore(), createMemoryQueue(), async () => {});
  try {
    await expect(webhooks.getEndpointHealth('agency-a')).rejects.toMatchObject({ code: 'config_not_found' });
  } finally {
    await webhooks.close();
  }
});
