import { hostResolver, jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { verifyWebhook } from '@svc/webhooks-verify';
import { afterEach, describe, expect, it } from 'vitest';

let harness: ServiceHarness;

afterEach(async () => {
  await harness?.close();
});

describe('delivery through a real HTTPS receiver', () => {
  it('delivers a signed envelope that verifies with the agency secret, headers included', async () => {
    harness = await startServiceHarness();
    const secret = await harness.configure('agency-a');
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const delivery = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'success');

    const [request] = harness.receiver.requests;
    const envelope = verifyWebhook(
      request!.rawBody,
      request!.headers['x-service-signature'] as string,
      secret,
    );
    expect(envelope).toMatchObject({
      webhookId: `whdel_${emitted!.deliveryId}`,
      eventType: 'job_cancelled',
      entityType: 'job',
      entityId: 'job-7',
      parentEntityId: null,
      createdById: 'agent-1',
      createdByRole: 'Agent',
      attempt: 1,
      metadata: { jobId: 'job-7', agencyId: 'agency-a', jobNumber: 7, reason: 'Tenant withdrew the request' },
    });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-service-webhook-id']).toBe(`whdel_${emitted!.deliveryId}`);
    expect(request!.headers['x-service-event-type']).toBe('job_cancelled');
    expect(delivery).toMatchObject({
      attempt: 1,
      lastResponseCode: 200,
      nextRetryAt: null,
      lastErrorMessage: null,
    });
    expect(delivery.deliveredAt).toBe(envelope.deliveredAt);
  });

  it('retries after a 500 and succeeds on the second attempt with the same webhookId', async () => {
    harness = await startServiceHarness();
    await harness.configure('agency-a');
    let calls = 0;
    harness.receiver.respond(() => (++calls === 1 ? { status: 500, body: 'boom' } : { status: 204 }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const delivery = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'success');

    expect(delivery.attempt).toBe(2);
    expect(delivery.lastResponseCode).toBe(204);
    const ids = harness.receiver.requests.map((r) => r.headers['x-service-webhook-id']);
    expect(ids).toEqual([`whdel_${emitted!.deliveryId}`, `whdel_${emitted!.deliveryId}`]);
    const attempts = harness.receiver.requests.map((r) => JSON.parse(r.rawBody).attempt);
    expect(attempts).toEqual([1, 2]);
  });

  it('marks a delivery failed after five 500s, then a replay succeeds at attempt 6', async () => {
    harness = await startServiceHarness();
    await harness.configure('agency-a');
    harness.receiver.respond(() => ({ status: 500, body: 'down for maintenance' }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');

    expect(failed).toMatchObject({ attempt: 5, maxAttempts: 5, lastResponseCode: 500, nextRetryAt: null });
    expect(failed.lastErrorMessage).toContain('500');
    expect(failed.lastResponseExcerpt).toBe('down for maintenance');
    expect(harness.receiver.requests).toHaveLength(5);

    harness.receiver.respond(() => ({ status: 200 }));
    await expect(harness.webhooks.replay('agency-a', emitted!.deliveryId)).resolves.toEqual({
      message: expect.any(String),
      deliveryId: emitted!.deliveryId,
    });
    const replayed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'success');
    expect(replayed.attempt).toBe(6);
    expect(JSON.parse(harness.receiver.requests[5]!.rawBody)).toMatchObject({
      attempt: 6,
      webhookId: `whdel_${emitted!.deliveryId}`,
    });
  });

  it('gives a replay exactly one more attempt: failing again makes it failed at attempt 6', async () => {
    harness = await startServiceHarness();
    await harness.configure('agency-a');
    harness.receiver.respond(() => ({ status: 503 }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    await harness.webhooks.replay('agency-a', emitted!.deliveryId);
    const again = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    expect(again).toMatchObject({ attempt: 6, maxAttempts: 6, nextRetryAt: null, lastResponseCode: 503 });
    expect(harness.receiver.requests).toHaveLength(6);
  });

  it('refuses to replay a pending or successful delivery, and hides other agencies’ deliveries', async () => {
    harness = await startServiceHarness();
    await harness.configure('agency-a');
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await harness.waitForStatus('agency-a', emitted!.deliveryId, 'success');
    await expect(harness.webhooks.replay('agency-a', emitted!.deliveryId)).rejects.toMatchObject({
      code: 'delivery_not_replayable',
    });
    await expect(harness.webhooks.replay('agency-b', emitted!.deliveryId)).rejects.toMatchObject({
      code: 'delivery_not_found',
    });
    await expect(harness.webhooks.getDelivery('agency-b', emitted!.deliveryId)).rejects.toMatchObject({
      code: 'delivery_not_found',
    });
  });

  it('signs the next delivery with the rotated secret only', async () => {
    harness = await startServiceHarness();
    const oldSecret = await harness.configure('agency-a');
    const { signingSecret: newSecret } = await harness.webhooks.rotateSecret('agency-a');
    expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(newSecret).not.toBe(oldSecret);

    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await harness.waitForStatus('agency-a', emitted!.deliveryId, 'success');
    const [request] = harness.receiver.requests;
    const header = request!.headers['x-service-signature'] as string;
    expect(verifyWebhook(request!.rawBody, header, newSecret).webhookId).toBe(`whdel_${emitted!.deliveryId}`);
    expect(() => verifyWebhook(request!.rawBody, header, oldSecret)).toThrow(
      expect.objectContaining({ code: 'signature_mismatch' }),
    );
  });

  it('counts a hanging receiver as a timed-out attempt', async () => {
    harness = await startServiceHarness({
      service: { retry: { maxAttempts: 1 }, transport: { timeoutMs: 300 } },
    });
    await harness.configure('agency-a');
    harness.receiver.respond(() => ({ hangMs: 5000 }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    expect(failed.lastResponseCode).toBeNull();
    expect(failed.lastErrorMessage).toMatch(/^The receiver did not answer in time\./);
  });

  it('never follows a redirect: it is a failed attempt naming the location', async () => {
    harness = await startServiceHarness({ service: { retry: { maxAttempts: 1 } } });
    await harness.configure('agency-a');
    harness.receiver.respond((request) =>
      request.path === '/hooks' ? { redirectTo: harness.receiver.urlFor('/elsewhere') } : { status: 200 },
    );
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    expect(failed.lastResponseCode).toBe(302);
    expect(failed.lastErrorMessage).toContain('/elsewhere');
    expect(harness.receiver.requests.map((r) => r.path)).toEqual(['/hooks']);
  });

  it('refuses to send when the hostname resolves to a private address at send time', async () => {
    const resolve = hostResolver({ 'rebind.test': (call) => (call === 1 ? '93.184.216.34' : '127.0.0.1') });
    harness = await startServiceHarness({ service: { urlPolicy: { resolve }, retry: { maxAttempts: 1 } } });
    await harness.webhooks.putConfig('agency-a', {
      webhookUrl: `https://rebind.test:${harness.receiver.port}/hooks`,
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
    });
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    expect(failed.lastResponseCode).toBeNull();
    expect(failed.lastErrorMessage).toMatch(/private|public/i);
    expect(harness.receiver.requests).toHaveLength(0);
  });

  it('fails a queued delivery without a request when its configuration was disabled', async () => {
    harness = await startServiceHarness({ worker: { pollIntervalMs: 20 } });
    await harness.worker.stop();
    await harness.configure('agency-a');
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await harness.webhooks.putConfig('agency-a', {
      webhookUrl: harness.receiver.url,
      enabled: false,
      subscribedEventTypes: ['job_cancelled'],
    });
    await harness.worker.start();
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    expect(failed.attempt).toBe(0);
    expect(failed.lastErrorMessage).toMatch(/disabled/i);
    expect(harness.receiver.requests).toHaveLength(0);
  });

  it('fails a queued delivery without a request when its configuration was deleted', async () => {
    harness = await startServiceHarness();
    await harness.worker.stop();
    await harness.configure('agency-a');
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await harness.webhooks.deleteConfig('agency-a');
    await harness.worker.start();
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    expect(failed.attempt).toBe(0);
    expect(failed.lastErrorMessage).toMatch(/deleted|no webhook configuration/i);
    expect(harness.receiver.requests).toHaveLength(0);
  });

  it('keeps other agencies flowing while one receiver hangs', async () => {
    harness = await startServiceHarness({
      service: { retry: { maxAttempts: 1 } },
      worker: { concurrency: 16, perAgencyConcurrency: 2 },
    });
    await harness.configure('slow', ['job_cancelled'], '/slow');
    await harness.configure('fast', ['job_cancelled'], '/fast');
    harness.receiver.respond((request) => (request.path === '/slow' ? { hangMs: 1500 } : { status: 200 }));
    for (let i = 0; i < 10; i++) await harness.webhooks.emit(jobCancelled('slow', i));
    const fast = [];
    for (let i = 0; i < 10; i++) fast.push(await harness.webhooks.emit(jobCancelled('fast', i)));
    for (const emitted of fast) await harness.waitForStatus('fast', emitted!.deliveryId, 'success');
    // All ten fast deliveries arrived while at most two slow ones were ever in flight.
    const slowSeen = harness.receiver.requests.filter((r) => r.path === '/slow').length;
    expect(slowSeen).toBeLessThanOrEqual(2);
  });

  it('calls the observability hooks with the saved record', async () => {
    const seen: string[] = [];
    harness = await startServiceHarness({
      service: {
        retry: { maxAttempts: 2, schedule: [10], jitterRatio: 0 },
        hooks: {
          onAttempt: ({ delivery, outcome }) =>
            seen.push(`attempt ${delivery.attempt} ${outcome.statusCode}`),
          onDelivered: (delivery) => seen.push(`delivered ${delivery.attempt}`),
          onFailed: (delivery) => seen.push(`failed ${delivery.attempt}`),
        },
      },
    });
    await harness.configure('agency-a');
    let calls = 0;
    harness.receiver.respond(() => ({ status: ++calls === 1 ? 500 : 200 }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await harness.waitForStatus('agency-a', emitted!.deliveryId, 'success');
    expect(seen).toEqual(['attempt 1 500', 'attempt 2 200', 'delivered 2']);
  });

  it('finishes in-flight attempts on stop() and claims nothing after it', async () => {
    harness = await startServiceHarness();
    await harness.configure('agency-a');
    harness.receiver.respond(() => ({ hangMs: 200 }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await harness.receiver.waitForRequests(1);
    await harness.worker.stop();
    expect((await harness.webhooks.getDelivery('agency-a', emitted!.deliveryId)).status).toBe('success');
    const later = await harness.webhooks.emit(jobCancelled('agency-a', 8));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await harness.webhooks.getDelivery('agency-a', later!.deliveryId)).attempt).toBe(0);
    expect(harness.receiver.requests).toHaveLength(1);
  });
});
