import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import { buildExampleEnvelope, builtInEvents } from '@svc/webhooks-core';
import { verifyWebhook } from '@svc/webhooks-verify';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, TOKENS } from './router-harness';

/*
 * POST /config/test with an optional { eventType }. Sends go to the real local HTTPS receiver; private
 * networks are allowed here only, because it listens on 127.0.0.1. Every answer is checked against the
 * OpenAPI document.
 */

let receiver: TestReceiver;
let h: Harness;

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 204, body: '' }));
  h = createHarness({
    service: { urlPolicy: { allowPrivateNetworks: true }, transport: { tls: { ca: receiver.ca } } },
  });
});
afterEach(() => h.service.close());
checkResponsesAgainstDocument(() => h);

async function configure(subscribedEventTypes = ['job_cancelled']): Promise<string> {
  const res = await request(h.app)
    .put(`${BASE}/config`)
    .set('authorization', TOKENS.owner)
    .send({ webhookUrl: receiver.url, enabled: true, subscribedEventTypes });
  expect(res.status).toBe(201);
  return res.body.signingSecret;
}

function postTest() {
  return request(h.app).post(`${BASE}/config/test`).set('authorization', TOKENS.owner);
}

function received(secret: string) {
  const last = receiver.requests.at(-1);
  if (!last) throw new Error('the receiver got nothing');
  return verifyWebhook(last.rawBody, last.headers['x-service-signature'], secret);
}

describe('POST /config/test { eventType }', () => {
  it('sends that event type’s example, signed, and leaves the delivery log and queue as they were', async () => {
    const secret = await configure();
    const before = await h.snapshot();
    const res = await postTest().send({ eventType: 'job_cancelled' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, statusCode: 204 });
    const envelope = received(secret);
    const { webhookId, createdOn, deliveredAt, ...example } = buildExampleEnvelope(builtInEvents[2]);
    expect(envelope).toMatchObject(example);
    expect(envelope.webhookId).toMatch(/^whdel_test_/);
    expect(await h.snapshot()).toBe(before);
  });

  it('reports a receiver that refuses the example like any test: 200, success false, its status', async () => {
    await configure();
    receiver.respond(() => ({ status: 422, body: 'unexpected shape' }));
    const res = await postTest().send({ eventType: 'job_cancelled' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, statusCode: 422 });
  });

  it('without a body, or with an empty one, sends webhook_test exactly as before', async () => {
    const secret = await configure();
    const bare = await postTest();
    expect(bare.body).toMatchObject({ success: true, statusCode: 204 });
    expect(received(secret)).toMatchObject({ eventType: 'webhook_test', entityId: 'agency-1' });
    const empty = await postTest().set('content-type', 'application/json').send('');
    expect(empty.body).toMatchObject({ success: true });
    expect(received(secret).eventType).toBe('webhook_test');
    expect(receiver.requests).toHaveLength(2);
  });

  it.each([
    ['an unknown event type', { eventType: 'job_exploded' }, 'unknown_event_type'],
    [
      'an event type the configuration does not subscribe to',
      { eventType: 'job_created' },
      'validation_failed',
    ],
    ['an unknown field', { eventType: 'job_cancelled', urgent: true }, 'validation_failed'],
    ['an empty eventType', { eventType: '' }, 'validation_failed'],
  ])('refuses %s with 400 %s and sends nothing', async (_name, body, code) => {
    await configure();
    const res = await postTest().send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    expect(receiver.requests).toHaveLength(0);
  });

  it('names the subscribed types when the chosen one is not among them', async () => {
    await configure(['job_cancelled', 'quote_approved']);
    const res = await postTest().send({ eventType: 'job_created' });
    expect(res.body.error.message).toContain('(job_cancelled, quote_approved)');
    expect(res.body.error.details).toEqual({ issues: [{ path: 'eventType', message: expect.any(String) }] });
  });

  it('refuses a body that is not JSON with 415, and malformed JSON with 400 invalid_json', async () => {
    await configure();
    const text = await postTest().set('content-type', 'text/plain').send('job_cancelled');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
    const broken = await postTest().set('content-type', 'application/json').send('{"eventType":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_json');
    expect(receiver.requests).toHaveLength(0);
  });

  it('checks the body before the configuration: 400 for an unknown type, 404 for a known one', async () => {
    const unknown = await postTest().send({ eventType: 'job_exploded' });
    expect(unknown.status).toBe(400);
    const known = await postTest().send({ eventType: 'job_cancelled' });
    expect(known.status).toBe(404);
    expect(known.body.error.code).toBe('config_not_found');
  });
});
