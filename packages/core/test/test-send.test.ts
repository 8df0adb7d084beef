import { hostResolver, startTestReceiver, type TestReceiver } from '@svc/test-support';
import { verifyWebhook } from '@svc/webhooks-verify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtInEvents } from '../src/events/built-in-events';
import { buildExampleEnvelope } from '../src/events/event-example';
import {
  createEventCatalogue,
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  defineEvent,
  type WebhookService,
  type WebhookServiceOptions,
} from '../src/index';

/*
 * POST /config/test with { eventType }: the example of that type, signed, sent through the same SSRF-checked
 * transport as every delivery, never written to the delivery log. Deliveries go to the real local HTTPS
 * receiver, reachable because private networks are allowed here (except in the rebinding case).
 */

let receiver: TestReceiver;
const services: WebhookService[] = [];

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(() => receiver.close());
afterEach(async () => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 200 }));
  for (const service of services.splice(0)) await service.close();
});

const noteAdded = defineEvent({
  type: 'note_added',
  entityType: 'job',
  metadata: z.strictObject({ text: z.string() }),
});

function serviceFor(options: Partial<WebhookServiceOptions> = {}): WebhookService {
  const service = createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: receiver.ca } },
    events: createEventCatalogue([noteAdded]),
    ...options,
  });
  services.push(service);
  return service;
}

async function configure(service: WebhookService, subscribedEventTypes: string[], url = receiver.url) {
  const config = await service.putConfig('agency-a', {
    webhookUrl: url,
    enabled: true,
    subscribedEventTypes,
  });
  return config.signingSecret;
}

function lastEnvelope(secret: string) {
  const request = receiver.requests.at(-1);
  if (!request) throw new Error('the receiver got no request');
  return {
    request,
    envelope: verifyWebhook(request.rawBody, request.headers['x-service-signature'], secret),
  };
}

describe('sendTest with an event type', () => {
  it('sends that type’s example, signed with the agency’s secret, and logs nothing', async () => {
    const service = serviceFor();
    const secret = await configure(service, ['quote_approved']);
    const before = await service.store.listDeliveries('agency-a', { limit: 10 });

    const result = await service.sendTest('agency-a', { eventType: 'quote_approved' });

    expect(result).toEqual({ success: true, statusCode: 200, message: expect.stringContaining('200') });
    const { request, envelope } = lastEnvelope(secret);
    const example = buildExampleEnvelope(builtInEvents[4]);
    expect(envelope).toEqual({
      ...example,
      webhookId: expect.stringMatching(/^whdel_test_/),
      createdOn: envelope.deliveredAt,
      deliveredAt: envelope.deliveredAt,
    });
    expect(request.headers['x-service-event-type']).toBe('quote_approved');
    expect(request.headers['x-service-webhook-id']).toBe(envelope.webhookId);
    expect(await service.store.listDeliveries('agency-a', { limit: 10 })).toEqual(before);
    expect(before).toEqual([]);
  });

  it('gives every test its own webhookId, so receivers do not drop the second one as a duplicate', async () => {
    const service = serviceFor();
    const secret = await configure(service, ['job_created']);
    await service.sendTest('agency-a', { eventType: 'job_created' });
    const first = lastEnvelope(secret).envelope.webhookId;
    await service.sendTest('agency-a', { eventType: 'job_created' });
    expect(lastEnvelope(secret).envelope.webhookId).not.toBe(first);
  });

  it.each([
    ['no body', undefined],
    ['an empty body', {}],
    ['webhook_test named', { eventType: 'webhook_test' }],
  ])('with %s sends webhook_test about the agency, as before', async (_name, body) => {
    const service = serviceFor();
    const secret = await configure(service, []);
    await expect(service.sendTest('agency-a', body)).resolves.toMatchObject({ success: true });
    expect(lastEnvelope(secret).envelope).toMatchObject({
      eventType: 'webhook_test',
      entityType: 'agency',
      entityId: 'agency-a',
      metadata: { agencyId: 'agency-a' },
    });
  });

  it.each([
    ['an unknown event type', { eventType: 'job_exploded' }, 'unknown_event_type'],
    [
      'an event type the configuration does not subscribe to',
      { eventType: 'job_created' },
      'validation_failed',
    ],
    ['a host event type without an example', { eventType: 'note_added' }, 'validation_failed'],
    ['an unknown field', { eventType: 'job_created', colour: 'blue' }, 'validation_failed'],
    ['an eventType that is not a string', { eventType: 42 }, 'validation_failed'],
  ])('refuses %s (%j) with %s and sends nothing', async (_name, body, code) => {
    const service = serviceFor();
    await configure(service, ['job_cancelled', 'note_added']);
    await expect(service.sendTest('agency-a', body as never)).rejects.toMatchObject({ code });
    expect(receiver.requests).toHaveLength(0);
  });

  it('says which types the configuration subscribes to when the chosen one is not among them', async () => {
    const service = serviceFor();
    await configure(service, ['job_cancelled']);
    await expect(service.sendTest('agency-a', { eventType: 'job_created' })).rejects.toMatchObject({
      message: expect.stringContaining('(job_cancelled)'),
      details: { issues: [{ path: 'eventType', message: expect.any(String) }] },
    });
  });

  it('checks the request before the configuration: an unknown type is a 400 even without a configuration', async () => {
    const service = serviceFor();
    await expect(service.sendTest('agency-a', { eventType: 'job_exploded' })).rejects.toMatchObject({
      code: 'unknown_event_type',
    });
    await expect(service.sendTest('agency-a', { eventType: 'job_created' })).rejects.toMatchObject({
      code: 'config_not_found',
    });
  });

  it('sends a host event type’s own example', async () => {
    const withExample = defineEvent({
      ...noteAdded,
      example: { entityId: 'job_1', metadata: { text: 'hi' } },
    });
    const service = serviceFor({ events: createEventCatalogue([withExample]) });
    const secret = await configure(service, ['note_added']);
    await service.sendTest('agency-a', { eventType: 'note_added' });
    expect(lastEnvelope(secret).envelope).toMatchObject({
      eventType: 'note_added',
      entityType: 'job',
      entityId: 'job_1',
      metadata: { text: 'hi' },
    });
  });

  it('is SSRF-checked at send time: a name that now resolves to a private address is not contacted', async () => {
    const resolve = hostResolver({ 'rebind.test': (call) => (call === 1 ? '93.184.216.34' : '127.0.0.1') });
    const service = serviceFor({ urlPolicy: { resolve } });
    await configure(service, ['job_created'], `https://rebind.test:${receiver.port}/hooks`);
    const result = await service.sendTest('agency-a', { eventType: 'job_created' });
    expect(result).toMatchObject({ success: false, statusCode: 0 });
    expect(resolve.calls('rebind.test')).toBe(2);
    expect(receiver.requests).toHaveLength(0);
  });
});
