import { randomBytes } from 'node:crypto';
import { hostResolver, startTestReceiver, type TestReceiver } from '@svc/test-support';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  type DeliveryRecord,
  maskSigningSecret,
  type WebhookLogger,
  type WebhookService,
} from '@svc/webhooks-core';
import { signWebhook } from '@svc/webhooks-verify';
import { afterEach, describe, expect, it } from 'vitest';
import { createPatientWebhooks } from '../examples/circuit-breaker-options';
import { createConfiguredWebhooks } from '../examples/configuration';
import {
  webhooks as eventWebhooks,
  jobFulfilmentStarted,
  onFulfilmentStarted,
} from '../examples/custom-events';
import { createObservedWebhooks } from '../examples/observability';
import { replayFailedDeliveries } from '../examples/replay-failed';
import { rotateAgencySecret, verifyDuringRotation } from '../examples/secret-rotation';
import { createSealedWebhooks, resealAllSecrets } from '../examples/secrets-at-rest';
import { saveWebhookUrl } from '../examples/webhook-url-errors';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function recordingLogger(lines: string[]): WebhookLogger {
  const write = (level: string) => (fields: Record<string, unknown>, message: string) =>
    lines.push(`${level} ${message} ${JSON.stringify(fields)}`);
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** A memory-backed service that may reach the local HTTPS test receiver. */
async function serviceWithReceiver(retry = { maxAttempts: 1 }) {
  const receiver = await startTestReceiver();
  const webhooks = createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: receiver.ca } },
    retry,
  });
  cleanups.push(async () => {
    await webhooks.close();
    await receiver.close();
  });
  return { receiver, webhooks };
}

async function waitForStatus(webhooks: WebhookService, agencyId: string, id: string, status: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const delivery = await webhooks.getDelivery(agencyId, id);
    if (delivery.status === status) return delivery;
    if (Date.now() > deadline) throw new Error(`delivery ${id} is ${delivery.status}, expected ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function failThreeDeliveries(webhooks: WebhookService, receiver: TestReceiver): Promise<string[]> {
  await webhooks.putConfig('agency-r', {
    webhookUrl: receiver.url,
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
  });
  receiver.respond(() => ({ status: 500 }));
  const ids: string[] = [];
  for (const jobNumber of [1, 2, 3]) {
    const emitted = await webhooks.emit({
      agencyId: 'agency-r',
      eventType: 'job_cancelled',
      entityId: `job-${jobNumber}`,
      metadata: { jobId: `job-${jobNumber}`, agencyId: 'agency-r', jobNumber, reason: 'test' },
    });
    ids.push(emitted!.deliveryId);
  }
  return ids;
}

describe('configuration sample', () => {
  it('builds a service and worker with the documented settings that refuse private URLs and run', async () => {
    const failed: DeliveryRecord[] = [];
    const store = createMemoryStore();
    const { webhooks, worker } = createConfiguredWebhooks({
      store,
      queue: createMemoryQueue(),
      logger: recordingLogger([]),
      alertOnFailure: (delivery) => failed.push(delivery),
    });
    await expect(
      webhooks.putConfig('agency-1', {
        webhookUrl: 'https://10.1.2.3/hooks',
        enabled: true,
        subscribedEventTypes: ['job_created'],
      }),
    ).rejects.toMatchObject({ code: 'invalid_webhook_url', reason: 'private_address' });
    expect(webhooks.store).toBe(store);
    await worker.start();
    expect(worker.running).toBe(true);
    await worker.stop();
    await webhooks.close();
  });
});

describe('custom events sample', () => {
  it('emits a custom event, rejects wrong metadata and keeps the built-in types', async () => {
    await eventWebhooks.store.upsertConfig({
      agencyId: 'agency-e',
      webhookUrl: 'https://hooks.example.com/in',
      enabled: true,
      subscribedEventTypes: ['job_fulfilment_started'],
      now: Date.now(),
      newId: 'config-e',
      newSigningSecret: 'b'.repeat(64),
    });
    const emitted = await onFulfilmentStarted('agency-e', 'job-1', 'ful-1', 'sp-1');
    const delivery = await eventWebhooks.getDelivery('agency-e', emitted!.deliveryId);
    expect(delivery).toMatchObject({ eventType: 'job_fulfilment_started', entityType: 'job' });

    const wrong = { ...(await fulfilmentEvent()), metadata: { jobId: 'job-1' } };
    await expect(eventWebhooks.emit(wrong as never)).rejects.toMatchObject({ code: 'invalid_metadata' });
    await expect(
      eventWebhooks.emit({ ...(await fulfilmentEvent()), eventType: 'job_fulfilment_paused' } as never),
    ).rejects.toMatchObject({ code: 'unknown_event_type' });
    expect(eventWebhooks.events.types).toContain('job_cancelled');
    expect(jobFulfilmentStarted.entityType).toBe('job');
    await eventWebhooks.close();
  });
});

async function fulfilmentEvent() {
  return {
    agencyId: 'agency-e',
    eventType: 'job_fulfilment_started',
    entityId: 'job-1',
    metadata: { fulfilmentId: 'f', jobId: 'j', agencyId: 'agency-e', serviceProviderId: 's', startedAt: 1 },
  };
}

describe('replay sample', () => {
  it('replays every failed delivery of the agency, which then succeed on attempt 2', async () => {
    const { receiver, webhooks } = await serviceWithReceiver();
    const { createWorker } = await import('@svc/webhooks-core');
    const worker = createWorker(webhooks, { pollIntervalMs: 20 });
    await worker.start();
    cleanups.push(() => worker.stop());
    const ids = await failThreeDeliveries(webhooks, receiver);
    for (const id of ids) await waitForStatus(webhooks, 'agency-r', id, 'failed');

    receiver.respond(() => ({ status: 200 }));
    await expect(replayFailedDeliveries(webhooks, 'agency-r')).resolves.toBe(3);
    for (const id of ids) {
      await expect(waitForStatus(webhooks, 'agency-r', id, 'success')).resolves.toMatchObject({ attempt: 2 });
    }
  });
});

describe('webhook URL errors sample', () => {
  it('explains each refused URL and saves a good one', async () => {
    const webhooks = createWebhookService({
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      urlPolicy: {
        resolve: hostResolver({ 'internal.example.com': '10.0.0.5', 'hooks.example.com': '93.184.215.14' }),
      },
    });
    cleanups.push(() => webhooks.close());
    const save = (url: string) => saveWebhookUrl(webhooks, 'agency-u', url);
    await expect(save('http://hooks.example.com/in')).resolves.toEqual({
      ok: false,
      message: 'The URL must start with https://.',
    });
    await expect(save('https://internal.example.com/in')).resolves.toMatchObject({
      ok: false,
      message: expect.stringContaining('private'),
    });
    await expect(save('https://missing.example.com/in')).resolves.toMatchObject({
      message: expect.stringContaining('DNS'),
    });
    await expect(save('not a url')).resolves.toMatchObject({ message: 'That is not a valid URL.' });
    await expect(save('https://hooks.example.com/in')).resolves.toEqual({ ok: true });
  });
});

describe('secret rotation sample', () => {
  it('returns the new secret, which verifies alone or next to the previous one; the previous alone fails', async () => {
    const { receiver, webhooks } = await serviceWithReceiver();
    const created = await webhooks.putConfig('agency-s', {
      webhookUrl: receiver.url,
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
    });
    const current = await rotateAgencySecret(webhooks, 'agency-s');
    expect(current).not.toBe(created.signingSecret);
    const body = new TextEncoder().encode('{"webhookId":"whdel_1"}');
    const header = signWebhook(body, current);

    expect(verifyDuringRotation(body, header, { current, previous: created.signingSecret })).toMatchObject({
      webhookId: 'whdel_1',
    });
    expect(verifyDuringRotation(body, header, { current })).toMatchObject({ webhookId: 'whdel_1' });
    expect(() => verifyDuringRotation(body, header, { current: created.signingSecret })).toThrow(
      expect.objectContaining({ code: 'signature_mismatch' }),
    );
  });
});

describe('observability sample', () => {
  it('logs a failed delivery and runs the extra onFailed hook next to the OpenTelemetry ones', async () => {
    const lines: string[] = [];
    const { webhooks, worker, stopObserving } = createObservedWebhooks(
      createMemoryStore(),
      createMemoryQueue(),
      recordingLogger(lines),
      async () => 0,
    );
    cleanups.push(async () => {
      stopObserving();
      await worker.stop();
      await webhooks.close();
    });
    // Written through the store: the sample keeps the production URL rules, and no request is sent here.
    await webhooks.store.upsertConfig({
      agencyId: 'agency-o',
      webhookUrl: 'https://hooks.example.com/in',
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
      now: Date.now(),
      newId: 'config-o',
      newSigningSecret: 'c'.repeat(64),
    });
    const emitted = await webhooks.emit({
      agencyId: 'agency-o',
      eventType: 'job_cancelled',
      entityId: 'job-1',
      metadata: { jobId: 'job-1', agencyId: 'agency-o', jobNumber: 1, reason: 'test' },
    });
    await webhooks.deleteConfig('agency-o'); // the delivery now fails without a request
    await worker.start();
    await waitForStatus(webhooks, 'agency-o', emitted!.deliveryId, 'failed');

    expect(lines.some((line) => line.startsWith('warn webhook delivery failed'))).toBe(true);
    expect(lines.some((line) => line.startsWith('info agency notified of a failed delivery'))).toBe(true);
  });
});

describe('circuit breaker options sample', () => {
  it('takes the tuned caps, and refuses the sixth test send in a minute with rate_limited', async () => {
    const store = createMemoryStore();
    const webhooks = createPatientWebhooks(store, createMemoryQueue(), () => undefined);
    cleanups.push(() => webhooks.close());
    expect(webhooks.transportStats()).toMatchObject({
      pools: 0,
      sockets: 0,
      maxPools: 4_096,
      maxSockets: 8_192,
    });
    // Stored directly: the sample's URL policy refuses 127.0.0.1 at PUT, and at send, which still counts.
    await store.upsertConfig({
      agencyId: 'agency-t',
      webhookUrl: 'https://127.0.0.1:9/hooks',
      enabled: true,
      subscribedEventTypes: [],
      now: Date.now(),
      newId: 'cfg-t',
      newSigningSecret: 'a'.repeat(64),
    });
    for (let index = 0; index < 5; index += 1) {
      expect((await webhooks.sendTest('agency-t')).success).toBe(false);
    }
    await expect(webhooks.sendTest('agency-t')).rejects.toMatchObject({ code: 'rate_limited' });
  });
});

describe('secrets at rest sample', () => {
  it('seals secrets under the primary key, and the rotation procedure moves them all to a new key', async () => {
    const [k2025, k2026] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
    const store = createMemoryStore();
    const sealed = (keys: string, primary: string) => {
      const env = { WEBHOOK_SECRET_KEYS: keys, WEBHOOK_SECRET_PRIMARY_KEY: primary };
      const webhooks = createSealedWebhooks(store, createMemoryQueue(), env);
      cleanups.push(() => webhooks.close());
      return webhooks;
    };
    const legacy = 'd'.repeat(64);
    // Written straight to the store, as before secretEncryption: a plaintext secret.
    await store.upsertConfig({
      agencyId: 'agency-l',
      webhookUrl: 'https://hooks.example.com/in',
      enabled: true,
      subscribedEventTypes: [],
      now: Date.now(),
      newId: 'cfg-l',
      newSigningSecret: legacy,
    });
    await store.upsertConfig({
      agencyId: 'agency-s',
      webhookUrl: 'https://hooks.example.com/in',
      enabled: true,
      subscribedEventTypes: [],
      now: Date.now(),
      newId: 'cfg-s',
      newSigningSecret: 'e'.repeat(64),
    });
    const { signingSecret } = await sealed(`k2025:${k2025}`, 'k2025').rotateSecret('agency-s');
    expect((await store.getConfig('agency-s'))?.signingSecret).toMatch(/^enc:v1:k2025:/);

    const rotating = sealed(`k2025:${k2025},k2026:${k2026}`, 'k2026');
    expect(await resealAllSecrets(rotating)).toBe('2 of 2 signing secrets re-sealed under the primary key');
    expect(await resealAllSecrets(rotating)).toBe('0 of 2 signing secrets re-sealed under the primary key');

    const newKeyOnly = sealed(`k2026:${k2026}`, 'k2026');
    expect((await newKeyOnly.getConfig('agency-s')).signingSecret).toBe(maskSigningSecret(signingSecret));
    expect((await newKeyOnly.getConfig('agency-l')).signingSecret).toBe(maskSigningSecret(legacy));
    for (const agencyId of ['agency-l', 'agency-s']) {
      expect((await store.getConfig(agencyId))?.signingSecret).toMatch(/^enc:v1:k2026:/);
    }
    expect(() => createSealedWebhooks(store, createMemoryQueue(), {})).toThrow(
      expect.objectContaining({ code: 'invalid_option', option: 'secretEncryption.keys' }),
    );
  });
});
