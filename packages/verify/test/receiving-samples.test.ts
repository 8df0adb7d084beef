import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BODY,
  ID,
  OTHER_SECRET,
  referenceHeader,
  referenceStandardSignature,
  SECRET,
  SECRET_WHSEC,
} from './fixtures';

/*
 * The samples docs/receiving-webhooks.md shows (test/samples/*.ts), run: each accepts a delivery signed
 * with its secret and answers 401 to one signed with another. They read WEBHOOK_SECRET (and
 * WEBHOOK_SECRET_WHSEC, WEBHOOK_PUBLIC_KEYS_URL) when loaded.
 */

const signingKey = generateKeyPairSync('ed25519');
const strangerKey = generateKeyPairSync('ed25519');
let publicKeysServer: Server;
let publicKeysRequests = 0;

let log: ReturnType<typeof vi.spyOn>;
beforeAll(async () => {
  // The router's JWKS, built here from node:crypto's own JWK export.
  const jwk = { ...signingKey.publicKey.export({ format: 'jwk' }), kid: 'whkey_1', use: 'sig', alg: 'EdDSA' };
  publicKeysServer = createServer((_req, res) => {
    publicKeysRequests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  }).listen(0, '127.0.0.1');
  await once(publicKeysServer, 'listening');
  const { port } = publicKeysServer.address() as AddressInfo;
  vi.stubEnv('WEBHOOK_SECRET', SECRET);
  vi.stubEnv('WEBHOOK_SECRET_WHSEC', SECRET_WHSEC);
  vi.stubEnv('WEBHOOK_PUBLIC_KEYS_URL', `http://127.0.0.1:${port}/public-keys/agency_1`);
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterAll(async () => {
  vi.unstubAllEnvs();
  log.mockRestore();
  await new Promise((resolve) => publicKeysServer.close(resolve));
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

/** A Standard Webhooks delivery with the given webhook-signature, signed now. */
function standardDelivery(signature: (seconds: number) => string): Request {
  const seconds = Math.floor(Date.now() / 1000);
  return new Request('https://receiver.example/webhooks', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': ID,
      'webhook-timestamp': String(seconds),
      'webhook-signature': signature(seconds),
    },
    body: BODY,
  });
}

const v1 = (secret: string) => (seconds: number) => referenceStandardSignature(BODY, secret, ID, seconds);
const v1a = (key: KeyObject) => (seconds: number) =>
  `v1a,${sign(null, Buffer.from(`${ID}.${seconds}.${BODY}`), key).toString('base64')}`;

async function postTo(app: Express, secretOrRequest: string | Request): Promise<number> {
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const request = typeof secretOrRequest === 'string' ? delivery(secretOrRequest) : secretOrRequest;
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

describe('the Standard Webhooks samples', () => {
  it('standardwebhooks (the library) with the whsec_ form: 204 when signed with the secret, else 401', async () => {
    const { app } = await import('./samples/standard-webhooks-library');
    expect(await postTo(app, standardDelivery(v1(SECRET)))).toBe(204);
    expect(await postTo(app, standardDelivery(v1(OTHER_SECRET)))).toBe(401);
  });

  it('verifyWebhook with all the headers: either scheme', async () => {
    const { app } = await import('./samples/standard-webhooks-either');
    expect(await postTo(app, standardDelivery(v1(SECRET)))).toBe(204);
    expect(await postTo(app, SECRET)).toBe(204);
    expect(await postTo(app, standardDelivery(v1(OTHER_SECRET)))).toBe(401);
    expect(await postTo(app, OTHER_SECRET)).toBe(401);
  });

  it('v1a with the public keys from the router, fetched once for several deliveries', async () => {
    const { app } = await import('./samples/standard-webhooks-public-keys');
    expect(await postTo(app, standardDelivery(v1a(signingKey.privateKey)))).toBe(204);
    expect(
      await postTo(
        app,
        standardDelivery((s) => `${v1(SECRET)(s)} ${v1a(signingKey.privateKey)(s)}`),
      ),
    ).toBe(204);
    expect(await postTo(app, standardDelivery(v1a(strangerKey.privateKey)))).toBe(401);
    expect(publicKeysRequests).toBe(1);
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
