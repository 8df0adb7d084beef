import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BODY, OTHER_SECRET, referenceHeader, SECRET } from './fixtures';

/*
 * The samples docs/receiving-webhooks.md shows (test/samples/*.ts), run: each accepts a delivery signed
 * with its secret and answers 401 to one signed with another. They read WEBHOOK_SECRET when loaded.
 */

let log: ReturnType<typeof vi.spyOn>;
beforeAll(() => {
  vi.stubEnv('WEBHOOK_SECRET', SECRET);
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterAll(() => {
  vi.unstubAllEnvs();
  log.mockRestore();
});

function delivery(secret: string): Request {
  return new Request('https://receiver.example/webhooks', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-signature': referenceHeader(BODY, secret, Date.now()),
    },
    body: BODY,
  });
}

async function postTo(app: Express, secret: string): Promise<number> {
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const request = delivery(secret);
    const response = await fetch(`http://127.0.0.1:${port}/webhooks`, {
      method: 'POST',
      headers: request.headers,
      body: await request.text(),
    });
    return response.status;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe.each([
  ['express-middleware', () => import('./samples/express-middleware')],
  ['express-by-hand', () => import('./samples/express-by-hand')],
])('the %s sample', (_name, load) => {
  it('answers 204 to a signed delivery and 401 to one signed with another secret', async () => {
    const { app } = await load();
    expect(await postTo(app, SECRET)).toBe(204);
    expect(await postTo(app, OTHER_SECRET)).toBe(401);
    expect(log.mock.calls.map((call: unknown[]) => call[0])).toContain('whdel_01');
  });
});

describe('the fetch samples', () => {
  it('Cloudflare Worker', async () => {
    const { default: worker } = await import('./samples/cloudflare-worker');
    expect((await worker.fetch(delivery(SECRET), { WEBHOOK_SECRET: SECRET })).status).toBe(204);
    expect((await worker.fetch(delivery(OTHER_SECRET), { WEBHOOK_SECRET: SECRET })).status).toBe(401);
  });

  it('Next.js route handler', async () => {
    const { POST } = await import('./samples/nextjs-route');
    expect((await POST(delivery(SECRET))).status).toBe(204);
    expect((await POST(delivery(OTHER_SECRET))).status).toBe(401);
  });

  it('any framework with a Request', async () => {
    const { handleWebhook } = await import('./samples/request-handler');
    expect((await handleWebhook(delivery(SECRET), SECRET)).status).toBe(204);
    await expect(handleWebhook(delivery(OTHER_SECRET), SECRET)).rejects.toMatchObject({
      code: 'signature_mismatch',
    });
  });
});
