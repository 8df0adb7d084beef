import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHostApp, type HostApp } from '../src/host-app';
import { createStaticAuthenticate, parseStaticTokens } from '../src/static-tokens';

let host: HostApp;
let server: Server;
let base: string;

beforeEach(async () => {
  host = await createHostApp({
    authenticate: createStaticAuthenticate(parseStaticTokens('tok_o:agency-1:owner,tok_g:agency-1:agent')),
    service: { urlPolicy: { resolve: async () => [{ address: '93.184.216.34', family: 4 }] } },
    demoEmit: true,
  });
  server = host.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await host.close();
});

function call(method: string, path: string, token?: string, body?: unknown) {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const jobCompleted = { eventType: 'job_completed', entityId: 'job-1', metadata: { jobId: 'job-1' } };

describe('the example host', () => {
  it('serves the management API with its authentication', async () => {
    const body = {
      webhookUrl: 'https://hooks.example.test/in',
      enabled: true,
      subscribedEventTypes: ['job_completed'],
    };
    expect((await call('PUT', '/v1/agency/webhooks/config', 'tok_g', body)).status).toBe(403);
    expect((await call('PUT', '/v1/agency/webhooks/config', 'tok_o', body)).status).toBe(201);
  });

  it('serves an agency’s public signing keys to receivers, without a token', async () => {
    expect((await call('GET', '/v1/agency/webhooks/public-keys/agency-1')).status).toBe(404);
    const body = {
      webhookUrl: 'https://hooks.example.test/in',
      enabled: true,
      subscribedEventTypes: ['job_completed'],
      signatureScheme: 'standard',
      asymmetricSignatures: true,
    };
    const created = await call('PUT', '/v1/agency/webhooks/config', 'tok_o', body);
    const { signingPublicKeys } = (await created.json()) as { signingPublicKeys: { kid: string }[] };
    const res = await call('GET', '/v1/agency/webhooks/public-keys/agency-1');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const { keys } = (await res.json()) as { keys: { kid: string }[] };
    expect(keys.map((key) => key.kid)).toEqual(signingPublicKeys.map((key) => key.kid));
  });

  it('serves the OpenAPI document', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('POST /demo/emit records a delivery for the token’s agency once it subscribes', async () => {
    expect((await call('POST', '/demo/emit', undefined, jobCompleted)).status).toBe(401);
    const before = await call('POST', '/demo/emit', 'tok_o', jobCompleted);
    expect(await before.json()).toEqual({ deliveryId: null });
    const body = {
      webhookUrl: 'https://hooks.example.test/in',
      enabled: true,
      subscribedEventTypes: ['job_completed'],
    };
    expect((await call('PUT', '/v1/agency/webhooks/config', 'tok_o', body)).status).toBe(201);
    await host.worker.stop(); // keep the delivery pending: nothing may connect to the fake public address
    const emitted = await call('POST', '/demo/emit', 'tok_o', jobCompleted);
    expect(emitted.status).toBe(202);
    const { deliveryId } = (await emitted.json()) as { deliveryId: string };
    const stored = await host.service.store.getDelivery(deliveryId);
    expect(stored).toMatchObject({ agencyId: 'agency-1', eventType: 'job_completed', status: 'pending' });
  });

  it('POST /demo/emit answers 400 with the service’s code for a bad event', async () => {
    const res = await call('POST', '/demo/emit', 'tok_o', {
      eventType: 'job_exploded',
      entityId: 'x',
      metadata: {},
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unknown_event_type');
  });
});
