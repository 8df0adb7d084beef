import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { WebhookEnvelope } from '@svc/webhooks-verify';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver } from '../examples/getting-started-receiver';
import { connectAgency, onJobCancelled, webhooks, worker } from '../examples/getting-started-sender';

const received: WebhookEnvelope[] = [];
let server: ReturnType<typeof createReceiver> | undefined;

afterAll(async () => {
  await worker.stop();
  await webhooks.close();
  server?.closeAllConnections();
  if (server) await new Promise((resolve) => server?.close(resolve));
});

describe('getting started: sender and receiver samples', () => {
  it('delivers a cancelled job to the sample receiver, which verifies it', async () => {
    // The secret comes from the first save; saving again with the real URL keeps it.
    const secret = await connectAgency('agency-1', 'http://127.0.0.1:9/placeholder');
    server = createReceiver(secret, (envelope) => received.push(envelope));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await connectAgency('agency-1', `http://127.0.0.1:${port}/webhooks`);

    const emitted = await onJobCancelled('agency-1', 'job-42', 42, 'Duplicate request');
    expect(worker.running).toBe(true); // the sample starts it
    const delivery = await waitForFinalStatus(emitted!.deliveryId);

    expect(delivery).toMatchObject({ status: 'success', attempt: 1, lastResponseCode: 204 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      webhookId: `whdel_${emitted!.deliveryId}`,
      eventType: 'job_cancelled',
      entityId: 'job-42',
      metadata: { jobId: 'job-42', agencyId: 'agency-1', jobNumber: 42, reason: 'Duplicate request' },
    });
  });

  it('the sample receiver answers 401 to a request signed with another secret', async () => {
    const { port } = server!.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-signature': `t=${Date.now()},v1=${'0'.repeat(64)}`,
      },
      body: '{}',
    });
    expect(response.status).toBe(401);
  });
});

async function waitForFinalStatus(deliveryId: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const delivery = await webhooks.getDelivery('agency-1', deliveryId);
    if (delivery.status !== 'pending' || Date.now() > deadline) return delivery;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
