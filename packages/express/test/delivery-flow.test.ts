import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import { createWorker, type WebhookWorker } from '@svc/webhooks-core';
import { verifyWebhook } from '@svc/webhooks-verify';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, jobCancelledInput, TOKENS } from './router-harness';

/*
 * The management API end to end: a real service on the memory adapters, a real
 * worker, and a real local HTTPS receiver. Private networks are allowed here
 * only, because the receiver listens on 127.0.0.1.
 */

let receiver: TestReceiver;
let h: Harness;
let worker: WebhookWorker;

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(async () => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 204, body: '' }));
  h = createHarness({
    service: {
      urlPolicy: { allowPrivateNetworks: true },
      transport: { tls: { ca: receiver.ca } },
      retry: { schedule: [10, 10, 10, 10], jitterRatio: 0 },
      // On the retry schedule's scale: a replay after five failures waits for the probe.
      circuitBreaker: { openMs: 50, maxOpenMs: 200 },
    },
  });
  worker = createWorker(h.service, { pollIntervalMs: 10 });
  await worker.start();
});
afterEach(async () => {
  await worker.stop();
  await h.service.close();
});
checkResponsesAgainstDocument(() => h);

const api = {
  put: (body: object) => request(h.app).put(`${BASE}/config`).set('authorization', TOKENS.owner).send(body),
  get: (path: string) => request(h.app).get(`${BASE}${path}`).set('authorization', TOKENS.owner),
  post: (path: string) => request(h.app).post(`${BASE}${path}`).set('authorization', TOKENS.owner),
};

async function configure(): Promise<string> {
  const res = await api.put({
    webhookUrl: receiver.url,
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
  });
  expect(res.status).toBe(201);
  return res.body.signingSecret;
}

async function emit(jobNumber: number): Promise<string> {
  const result = await h.service.emit(jobCancelledInput('agency-1', jobNumber));
  if (!result) throw new Error('emit produced no delivery');
  return result.deliveryId;
}

/** Polls the API (not the store) until the delivery reaches `status`. */
async function untilStatus(id: string, status: string): Promise<Record<string, unknown>> {
  return vi.waitFor(
    async () => {
      const res = await api.get(`/deliveries/${id}`);
      expect(res.body.status).toBe(status);
      return res.body;
    },
    { timeout: 10_000, interval: 20 },
  );
}

function requestsFor(id: string) {
  return receiver.requests.filter((received) => received.headers['x-service-webhook-id'] === `whdel_${id}`);
}

describe('deliveries through the API', () => {
  it('emit → delivered: the receiver gets a body signed with the secret PUT returned', async () => {
    const secret = await configure();
    const id = await emit(1);
    const delivered = await untilStatus(id, 'success');
    expect(delivered).toMatchObject({ attempt: 1, lastResponseCode: 204, nextRetryAt: null });
    const [received] = requestsFor(id);
    const envelope = verifyWebhook(
      received?.rawBody ?? '',
      received?.headers['x-service-signature'] as string,
      secret,
    );
    expect(envelope).toMatchObject({ webhookId: `whdel_${id}`, eventType: 'job_cancelled', attempt: 1 });
    const list = await api.get('/deliveries?status=success');
    expect(list.body.deliveries.map((d: { id: string }) => d.id)).toEqual([id]);
  });

  it('a refusing receiver → failed after 5 attempts; replay → success at attempt 6', async () => {
    await configure();
    receiver.respond(() => ({ status: 500, body: 'down' }));
    const id = await emit(2);
    const failed = await untilStatus(id, 'failed');
    expect(failed).toMatchObject({ attempt: 5, maxAttempts: 5, lastResponseCode: 500, nextRetryAt: null });
    expect(requestsFor(id)).toHaveLength(5);

    receiver.respond(() => ({ status: 200, body: 'ok' }));
    const replayed = await api.post(`/deliveries/${id}/replay`);
    expect(replayed.status).toBe(202);
    expect(replayed.body.deliveryId).toBe(id);
    const delivered = await untilStatus(id, 'success');
    expect(delivered).toMatchObject({ attempt: 6, lastResponseCode: 200 });
    const attempts = requestsFor(id).map((received) => JSON.parse(received.rawBody).attempt);
    expect(attempts).toEqual([1, 2, 3, 4, 5, 6]);

    const again = await api.post(`/deliveries/${id}/replay`);
    expect(again.status).toBe(409);
  });

  it('GET /deliveries/:id/attempts lists every attempt the worker made: five automatic, then the replay’s', async () => {
    await configure();
    receiver.respond(() => ({ status: 500, body: 'down' }));
    const id = await emit(4);
    const failed = await untilStatus(id, 'failed');
    receiver.respond(() => ({ status: 200, body: 'ok' }));
    expect((await api.post(`/deliveries/${id}/replay`)).status).toBe(202);
    await untilStatus(id, 'success');

    const res = await api.get(`/deliveries/${id}/attempts`);
    expect(res.status).toBe(200);
    const history: Array<Record<string, unknown>> = res.body.attempts;
    const column = (field: string) => history.map((entry) => entry[field]);
    expect(column('attempt')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(column('trigger')).toEqual([...Array(5).fill('automatic'), 'replay']);
    expect(column('responseCode')).toEqual([...Array(5).fill(500), 200]);
    expect(column('errorKind')).toEqual([...Array(5).fill('http_status'), null]);
    expect(column('errorMessage')).toEqual([...Array(5).fill(failed.lastErrorMessage), null]);
    expect(column('responseExcerpt')).toEqual([...Array(5).fill('down'), 'ok']);
    const started = column('startedAt') as number[];
    expect(started, 'oldest first').toEqual([...started].sort((a, b) => a - b));
    expect(started[4], 'the fifth is the failed delivery’s last attempt').toBe(failed.lastAttemptAt);
    for (const duration of column('durationMs')) expect(duration).toBeGreaterThanOrEqual(0);
  });

  it('after rotate-secret the next delivery verifies with the new secret and not the old one', async () => {
    const oldSecret = await configure();
    const rotated = await api.post('/config/rotate-secret');
    expect(rotated.status).toBe(200);
    const id = await emit(3);
    await untilStatus(id, 'success');
    const [received] = requestsFor(id);
    const header = received?.headers['x-service-signature'] as string;
    expect(() => verifyWebhook(received?.rawBody ?? '', header, rotated.body.signingSecret)).not.toThrow();
    expect(() => verifyWebhook(received?.rawBody ?? '', header, oldSecret)).toThrow(
      expect.objectContaining({ code: 'signature_mismatch' }),
    );
  });
});

describe('POST /config/test', () => {
  it('sends a signed webhook_test event and reports success; the delivery log is unchanged', async () => {
    const secret = await configure();
    const before = await h.snapshot();
    const res = await api.post('/config/test');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, statusCode: 204 });
    const [received] = await receiver.waitForRequests(1);
    const envelope = verifyWebhook(
      received?.rawBody ?? '',
      received?.headers['x-service-signature'] as string,
      secret,
    );
    expect(envelope).toMatchObject({ eventType: 'webhook_test', entityType: 'agency', entityId: 'agency-1' });
    expect(await h.snapshot()).toBe(before);
  });

  it('reports a refusing receiver: success false, its status, and a message stating it', async () => {
    await configure();
    receiver.respond(() => ({ status: 503, body: 'maintenance' }));
    const res = await api.post('/config/test');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, statusCode: 503 });
    expect(res.body.message).toContain('503');
  });

  it('is sent even while the configuration is disabled', async () => {
    const created = await api.put({ webhookUrl: receiver.url, enabled: false, subscribedEventTypes: [] });
    expect(created.status).toBe(201);
    const res = await api.post('/config/test');
    expect(res.body.success).toBe(true);
    expect(receiver.requests).toHaveLength(1);
  });
});
