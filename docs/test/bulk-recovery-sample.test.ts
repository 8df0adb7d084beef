import { startTestReceiver } from '@svc/test-support';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  createWorker,
  type Recovery,
} from '@svc/webhooks-core';
import { afterEach, expect, it } from 'vitest';
import { recoverOutage } from '../examples/bulk-recovery';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('the bulk recovery sample replays an outage’s failed deliveries and reports progress to the end', async () => {
  const receiver = await startTestReceiver({ respond: () => ({ status: 503 }) });
  const webhooks = createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: receiver.ca } },
    retry: { maxAttempts: 1 },
    circuitBreaker: false,
  });
  const worker = createWorker(webhooks, { pollIntervalMs: 20, bulkRecovery: { pollIntervalMs: 20 } });
  await worker.start();
  cleanups.push(async () => {
    await worker.stop();
    await webhooks.close();
    await receiver.close();
  });
  await webhooks.putConfig('agency-r', {
    webhookUrl: receiver.url,
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
  });
  const since = Date.now();
  for (const jobNumber of [1, 2, 3, 4]) {
    await webhooks.emit({
      agencyId: 'agency-r',
      eventType: 'job_cancelled',
      entityId: `job-${jobNumber}`,
      metadata: { jobId: `job-${jobNumber}`, agencyId: 'agency-r', jobNumber, reason: 'Outage test' },
    });
  }
  await expect
    .poll(async () => (await webhooks.listDeliveries('agency-r', { status: 'failed' })).deliveries.length)
    .toBe(4);
  const until = Date.now() + 1;
  receiver.respond(() => ({ status: 200 }));

  const seen: Recovery[] = [];
  const ended = await recoverOutage(webhooks, 'agency-r', { since, until }, (recovery) =>
    seen.push(recovery),
  );
  expect(ended).toMatchObject({ status: 'completed', matched: 4, replayed: 4 });
  expect(seen.at(-1)).toEqual(ended);
  await expect
    .poll(async () => (await webhooks.listDeliveries('agency-r', { status: 'success' })).deliveries.length)
    .toBe(4);
  await expect(recoverOutage(webhooks, 'agency-r', { since, until }, () => {})).resolves.toBeNull();
});
