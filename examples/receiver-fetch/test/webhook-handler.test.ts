import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signWebhook, type WebhookEnvelope } from '@svc/webhooks-verify';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchServer } from '../src/node-fetch-server';
import { createWebhookFetchHandler } from '../src/webhook-handler';

const SECRET = 'd'.repeat(64);
const body = JSON.stringify({
  webhookId: 'whdel_9',
  eventType: 'job_completed',
  entityType: 'job',
  entityId: 'job-9',
  parentEntityId: null,
  createdById: null,
  createdByRole: null,
  metadata: { jobId: 'job-9' },
  createdOn: Date.now(),
  deliveredAt: Date.now(),
  attempt: 1,
});

function setup() {
  const handled: WebhookEnvelope[] = [];
  const logs: string[] = [];
  const handler = createWebhookFetchHandler({
    secret: [SECRET, 'e'.repeat(64)],
    onDelivery: (envelope) => {
      handled.push(envelope);
    },
    log: (line) => logs.push(line),
  });
  return { handler, handled, logs };
}

function delivery(signature: string, url = 'https://receiver.example/webhooks'): Request {
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signature },
    body,
  });
}

describe('the fetch-handler receiver example', () => {
  it('answers 204 to a signed delivery and hands over the envelope', async () => {
    const { handler, handled } = setup();
    const res = await handler(delivery(signWebhook(body, SECRET)));
    expect(res.status).toBe(204);
    expect(handled.map((envelope) => envelope.webhookId)).toEqual(['whdel_9']);
  });

  it('accepts either secret during a rotation', async () => {
    const { handler } = setup();
    expect((await handler(delivery(signWebhook(body, 'e'.repeat(64))))).status).toBe(204);
  });

  it('answers 401 with a JSON error to a bad signature, without calling the handler', async () => {
    const { handler, handled, logs } = setup();
    const res = await handler(delivery(signWebhook(body, 'f'.repeat(64))));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('signature_mismatch');
    expect(handled).toEqual([]);
    expect(logs[0]).toMatch(/^✘ rejected/);
  });

  it('answers 404 on another path and 405 to another method', async () => {
    const { handler } = setup();
    expect(
      (await handler(delivery(signWebhook(body, SECRET), 'https://receiver.example/other'))).status,
    ).toBe(404);
    const get = await handler(new Request('https://receiver.example/webhooks'));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

describe('createFetchServer', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('passes the exact body bytes to the handler over node:http', async () => {
    const { handler, handled } = setup();
    server = createFetchServer(handler);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    const ok = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signWebhook(body, SECRET) },
      body,
    });
    expect(ok.status).toBe(204);
    const bad = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signWebhook(body, SECRET) },
      body: `${body} `,
    });
    expect(bad.status).toBe(401);
    expect(handled).toHaveLength(1);
  });
});
