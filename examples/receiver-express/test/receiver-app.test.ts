import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signWebhook, type WebhookEnvelope } from '@svc/webhooks-verify';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiverApp, type ReceiverAppOptions } from '../src/receiver-app';

const SECRET = 'a'.repeat(64);
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function start(
  options: Partial<ReceiverAppOptions> = {},
): Promise<{ url: string; logs: string[]; handled: WebhookEnvelope[] }> {
  const logs: string[] = [];
  const handled: WebhookEnvelope[] = [];
  const app = createReceiverApp({
    secret: SECRET,
    log: (line) => logs.push(line),
    onDelivery: (envelope) => {
      handled.push(envelope);
      return undefined;
    },
    ...options,
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, logs, handled };
}

function envelopeBody(webhookId = 'whdel_1', attempt = 1): string {
  return JSON.stringify({
    webhookId,
    eventType: 'job_cancelled',
    entityType: 'job',
    entityId: 'job-1',
    parentEntityId: null,
    createdById: null,
    createdByRole: null,
    metadata: { jobId: 'job-1', agencyId: 'agency-1', jobNumber: 1, reason: 'Duplicate' },
    createdOn: Date.now(),
    deliveredAt: Date.now(),
    attempt,
  });
}

function post(url: string, body: string, signature: string) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signature },
    body,
  });
}

describe('the Express receiver example', () => {
  it('verifies a signed delivery, hands it over and answers 204', async () => {
    const { url, handled, logs } = await start();
    const body = envelopeBody();
    const res = await post(url, body, signWebhook(body, SECRET));
    expect(res.status).toBe(204);
    expect(handled.map((envelope) => envelope.webhookId)).toEqual(['whdel_1']);
    expect(logs[0]).toMatch(/^✔ job_cancelled whdel_1 attempt 1: signature verified, answered 204$/);
  });

  it('answers 401 to a wrong signature and never calls the handler', async () => {
    const { url, handled, logs } = await start();
    const body = envelopeBody();
    const res = await post(url, body, signWebhook(body, 'b'.repeat(64)));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('signature_mismatch');
    expect(handled).toEqual([]);
    expect(logs[0]).toMatch(/^✘ rejected/);
  });

  it('answers 401 to a body changed after signing', async () => {
    const { url } = await start();
    const body = envelopeBody();
    const res = await post(url, body.replace('Duplicate', 'Changed'), signWebhook(body, SECRET));
    expect(res.status).toBe(401);
  });

  it('acknowledges a delivery it already processed without processing it again', async () => {
    const { url, handled } = await start();
    const body = envelopeBody('whdel_2');
    await post(url, body, signWebhook(body, SECRET));
    const again = await post(url, body, signWebhook(body, SECRET));
    expect(again.status).toBe(200);
    expect(handled).toHaveLength(1);
  });

  it('processes a retry of a delivery it refused before', async () => {
    let refuse = true;
    const { url } = await start({ onDelivery: () => (refuse ? 503 : 204) });
    const body = envelopeBody('whdel_3');
    expect((await post(url, body, signWebhook(body, SECRET))).status).toBe(503);
    refuse = false;
    const retry = envelopeBody('whdel_3', 2);
    expect((await post(url, retry, signWebhook(retry, SECRET))).status).toBe(204);
  });

  it('reads the current secret on every request, so a rotation needs no restart', async () => {
    let current = SECRET;
    const { url } = await start({ secret: () => current });
    current = 'c'.repeat(64);
    const body = envelopeBody('whdel_4');
    expect((await post(url, body, signWebhook(body, SECRET))).status).toBe(401);
    expect((await post(url, body, signWebhook(body, current))).status).toBe(204);
  });
});
