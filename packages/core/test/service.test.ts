import { hostResolver, jobCancelled, startTestReceiver, type TestReceiver } from '@svc/test-support';
import { verifyWebhook } from '@svc/webhooks-verify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEventCatalogue } from '../src/events/event-catalogue';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  defineEvent,
  type WebhookService,
} from '../src/index';

const PUBLIC_HOST = 'hooks.example.test';
const resolve = hostResolver({ [PUBLIC_HOST]: '93.184.216.34', 'internal.example.test': '10.0.0.7' });
const validBody = {
  webhookUrl: `https://${PUBLIC_HOST}/hooks`,
  enabled: true,
  subscribedEventTypes: ['job_cancelled', 'job_created'],
};

let webhooks: WebhookService;
let now: number;

beforeEach(() => {
  now = 1_700_000_000_000;
  webhooks = createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    urlPolicy: { resolve },
    clock: () => now,
  });
});

describe('configuration', () => {
  it('creates with the full secret once, then shows it masked and keeps it on update', async () => {
    const created = await webhooks.putConfig('agency-a', validBody);
    expect(created.created).toBe(true);
    expect(created.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    const masked = `service_whsec_********${created.signingSecret.slice(-4)}`;
    await expect(webhooks.getConfig('agency-a')).resolves.toEqual({
      id: created.id,
      webhookUrl: validBody.webhookUrl,
      signingSecret: masked,
      enabled: true,
      subscribedEventTypes: ['job_cancelled', 'job_created'],
      signatureScheme: 'service',
      asymmetricSignatures: false,
      signingPublicKeys: [],
    });
    const updated = await webhooks.putConfig('agency-a', { ...validBody, enabled: false });
    expect(updated).toMatchObject({ created: false, id: created.id, signingSecret: masked, enabled: false });
  });

  it('removes duplicate subscriptions', async () => {
    const config = await webhooks.putConfig('agency-a', {
      ...validBody,
      subscribedEventTypes: ['job_created', 'job_created', 'quote_approved'],
    });
    expect(config.subscribedEventTypes).toEqual(['job_created', 'quote_approved']);
  });

  it.each([
    ['an http URL', { webhookUrl: `http://${PUBLIC_HOST}/hooks` }, 'invalid_webhook_url', 'not_https'],
    [
      'a private address',
      { webhookUrl: 'https://internal.example.test/' },
      'invalid_webhook_url',
      'private_address',
    ],
    [
      'an unresolvable host',
      { webhookUrl: 'https://nowhere.example.test/' },
      'invalid_webhook_url',
      'unresolvable_host',
    ],
    ['a malformed URL', { webhookUrl: 'not a url' }, 'invalid_webhook_url', 'invalid_url'],
    ['an unknown event type', { subscribedEventTypes: ['job_exploded'] }, 'unknown_event_type', undefined],
    ['a missing field', { enabled: undefined }, 'validation_failed', undefined],
    ['an unknown field', { colour: 'blue' }, 'validation_failed', undefined],
    ['a non-boolean enabled', { enabled: 'yes' }, 'validation_failed', undefined],
  ])('rejects %s and changes nothing', async (_name, patch, code, reason) => {
    const before = await webhooks.putConfig('agency-a', validBody);
    const body = { ...validBody, ...patch } as typeof validBody;
    const rejection = expect(webhooks.putConfig('agency-a', body)).rejects;
    await rejection.toMatchObject(reason ? { code, details: { reason } } : { code });
    const after = await webhooks.getConfig('agency-a');
    expect(after).toMatchObject({ id: before.id, webhookUrl: validBody.webhookUrl, enabled: true });
  });

  it('rotates the secret and reports a missing configuration', async () => {
    const { signingSecret } = await webhooks.putConfig('agency-a', validBody);
    const rotated = await webhooks.rotateSecret('agency-a');
    expect(rotated.signingSecret).not.toBe(signingSecret);
    expect((await webhooks.getConfig('agency-a')).signingSecret.slice(-4)).toBe(
      rotated.signingSecret.slice(-4),
    );
    await expect(webhooks.rotateSecret('agency-z')).rejects.toMatchObject({ code: 'config_not_found' });
    await expect(webhooks.getConfig('agency-z')).rejects.toMatchObject({ code: 'config_not_found' });
    await expect(webhooks.sendTest('agency-z')).rejects.toMatchObject({ code: 'config_not_found' });
  });
});

describe('emit', () => {
  it('returns null without a configuration, when disabled, or when not subscribed', async () => {
    await expect(webhooks.emit(jobCancelled('agency-a'))).resolves.toBeNull();
    await webhooks.putConfig('agency-a', { ...validBody, enabled: false });
    await expect(webhooks.emit(jobCancelled('agency-a'))).resolves.toBeNull();
    await webhooks.putConfig('agency-a', { ...validBody, subscribedEventTypes: ['job_created'] });
    await expect(webhooks.emit(jobCancelled('agency-a'))).resolves.toBeNull();
    await expect(webhooks.listDeliveries('agency-a')).resolves.toEqual({ deliveries: [], nextCursor: null });
  });

  it('records a pending delivery due now, with the event fields', async () => {
    await webhooks.putConfig('agency-a', validBody);
    const emitted = await webhooks.emit(
      jobCancelled('agency-a', 9, { eventId: 'evt-1', createdOn: 1_700_000_001_234 }),
    );
    const delivery = await webhooks.getDelivery('agency-a', emitted!.deliveryId);
    expect(delivery).toMatchObject({
      webhookId: `whdel_${emitted!.deliveryId}`,
      eventId: 'evt-1',
      eventType: 'job_cancelled',
      entityType: 'job',
      entityId: 'job-9',
      status: 'pending',
      attempt: 0,
      maxAttempts: 5,
      nextRetryAt: now,
      createdOn: 1_700_000_001_234,
      lastAttemptAt: null,
      deliveredAt: null,
    });
  });

  it('is idempotent per agency on eventId', async () => {
    await webhooks.putConfig('agency-a', validBody);
    const first = await webhooks.emit(jobCancelled('agency-a', 1, { eventId: 'evt-1' }));
    const second = await webhooks.emit(jobCancelled('agency-a', 1, { eventId: 'evt-1' }));
    expect(second).toEqual(first);
    expect((await webhooks.listDeliveries('agency-a')).deliveries).toHaveLength(1);
  });

  it('refuses unknown event types and wrong metadata with typed errors, storing nothing', async () => {
    await webhooks.putConfig('agency-a', validBody);
    await expect(
      webhooks.emit({ ...jobCancelled('agency-a'), eventType: 'job_exploded' } as never),
    ).rejects.toMatchObject({ code: 'unknown_event_type' });
    await expect(
      webhooks.emit({ ...jobCancelled('agency-a'), metadata: { jobId: 'j' } } as never),
    ).rejects.toMatchObject({ code: 'invalid_metadata' });
    expect((await webhooks.listDeliveries('agency-a')).deliveries).toHaveLength(0);
  });

  it('accepts events registered with defineEvent', async () => {
    const events = createEventCatalogue([
      defineEvent({
        type: 'job_fulfilment_started',
        entityType: 'job',
        metadata: z.strictObject({ fulfilmentId: z.string(), jobId: z.string() }),
      }),
    ]);
    const custom = createWebhookService({
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      urlPolicy: { resolve },
      events,
    });
    await custom.putConfig('agency-a', { ...validBody, subscribedEventTypes: ['job_fulfilment_started'] });
    const emitted = await custom.emit({
      agencyId: 'agency-a',
      eventType: 'job_fulfilment_started',
      entityId: 'job-1',
      metadata: { fulfilmentId: 'f-1', jobId: 'job-1' },
    });
    expect(emitted).not.toBeNull();
  });
});

describe('delivery list', () => {
  it('pages newest first with a cursor, filters by status and validates the query', async () => {
    await webhooks.putConfig('agency-a', validBody);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await webhooks.emit(jobCancelled('agency-a', i)))!.deliveryId);
    await webhooks.putConfig('agency-b', validBody);
    await webhooks.emit(jobCancelled('agency-b'));

    const first = await webhooks.listDeliveries('agency-a');
    expect(first.deliveries.map((d) => d.id)).toEqual(ids.slice(5).reverse());
    expect(first.nextCursor).not.toBeNull();
    const second = await webhooks.listDeliveries('agency-a', { cursor: first.nextCursor! });
    expect(second.deliveries.map((d) => d.id)).toEqual(ids.slice(0, 5).reverse());
    expect(second.nextCursor).toBeNull();
    expect(Object.keys(first.deliveries[0]!).sort()).toEqual([
      'attempt',
      'createdAt',
      'deliveredAt',
      'entityId',
      'entityType',
      'eventType',
      'id',
      'lastAttemptAt',
      'lastResponseCode',
      'status',
    ]);

    expect((await webhooks.listDeliveries('agency-a', { status: 'success' })).deliveries).toEqual([]);
    expect((await webhooks.listDeliveries('agency-a', { limit: '3' as never })).deliveries).toHaveLength(3);
    for (const query of [
      { limit: 0 },
      { limit: 101 },
      { status: 'done' },
      { cursor: 'garbage' },
      { page: 2 },
    ]) {
      await expect(webhooks.listDeliveries('agency-a', query as never)).rejects.toMatchObject({
        code: 'validation_failed',
      });
    }
  });
});

describe('test event', () => {
  let receiver: TestReceiver;
  beforeAll(async () => {
    receiver = await startTestReceiver();
  });
  afterAll(() => receiver.close());

  it('sends one signed webhook_test envelope, enabled or not, and logs nothing', async () => {
    const service = createWebhookService({
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      urlPolicy: { allowPrivateNetworks: true },
      transport: { tls: { ca: receiver.ca } },
    });
    const { signingSecret } = await service.putConfig('agency-a', {
      webhookUrl: receiver.url,
      enabled: false,
      subscribedEventTypes: [],
    });
    receiver.respond(() => ({ status: 200 }));
    await expect(service.sendTest('agency-a')).resolves.toEqual({
      success: true,
      statusCode: 200,
      message: expect.stringContaining('200'),
    });
    const request = receiver.requests.at(-1)!;
    const envelope = verifyWebhook(
      request.rawBody,
      request.headers['x-service-signature'] as string,
      signingSecret,
    );
    expect(envelope).toMatchObject({
      eventType: 'webhook_test',
      entityType: 'agency',
      entityId: 'agency-a',
      attempt: 1,
    });

    receiver.respond(() => ({ status: 418 }));
    await expect(service.sendTest('agency-a')).resolves.toEqual({
      success: false,
      statusCode: 418,
      message: expect.stringContaining('HTTP 418'),
    });
    expect((await service.listDeliveries('agency-a')).deliveries).toEqual([]);
    await service.close();
  });
});
