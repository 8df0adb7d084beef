import type { AddressInfo } from 'node:net';
import {
  generateStandardKeyPair,
  publicKeyToJwk,
  signStandardWebhook,
  signStandardWebhookAsymmetric,
  signWebhook,
  WebhookVerificationError,
} from '@svc/webhooks-verify';
import { type VerificationErrorBody, verifyWebhookMiddleware } from '@svc/webhooks-verify/express';
import { verifyWebhookRequest, webhookHandler } from '@svc/webhooks-verify/fetch';
import express, { type Request } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY, ID, OTHER_SECRET, SECRET } from './fixtures';

/*
 * The request helpers (Express middleware, Fetch API) verify either scheme: an agency on 'standard' sends
 * no X-Service-Signature, and a receiver built on the helpers must not turn every such delivery into a 401.
 */

const keyPair = generateStandardKeyPair();
const jwks = { keys: [publicKeyToJwk(keyPair.publicKey, 'key_1')] };

/** The headers of a delivery signed now by Standard Webhooks: `v1` with `secret`, plus `v1a` when asked. */
function standardDelivery(secret = SECRET, withV1a = false): Record<string, string> {
  const seconds = Math.floor(Date.now() / 1000);
  const v1 = signStandardWebhook(BODY, secret, ID, seconds);
  const v1a = signStandardWebhookAsymmetric(BODY, keyPair.privateKey, ID, seconds);
  return {
    'webhook-id': ID,
    'webhook-timestamp': String(seconds),
    'webhook-signature': withV1a ? `${v1} ${v1a}` : v1,
  };
}

const serviceDelivery = () => ({ 'x-service-signature': signWebhook(BODY, SECRET, Date.now()) });

describe('verifyWebhookMiddleware verifies either scheme', () => {
  const received: unknown[] = [];
  let server: ReturnType<ReturnType<typeof express>['listen']>;
  let base: string;

  beforeAll(async () => {
    const app = express();
    const ok = (req: Request, res: express.Response) => {
      received.push(req.webhook);
      res.status(204).end();
    };
    app.post('/any', verifyWebhookMiddleware({ secret: SECRET }), ok);
    app.post('/standard-only', verifyWebhookMiddleware({ secret: SECRET, scheme: 'standard' }), ok);
    app.post('/public-keys', verifyWebhookMiddleware({ getSecret: () => jwks }), ok);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (path: string, headers: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      body: BODY,
      headers: { 'content-type': 'application/json', ...headers },
    });
  const errorOf = async (response: Response) => ((await response.json()) as VerificationErrorBody).error;

  it('passes a Standard Webhooks delivery signed with the agency secret, and one with the spec header', async () => {
    received.length = 0;
    expect((await post('/any', standardDelivery())).status).toBe(204);
    expect((await post('/any', serviceDelivery())).status).toBe(204);
    expect(received).toEqual([JSON.parse(BODY), JSON.parse(BODY)]);
  });

  it('refuses a Standard Webhooks delivery signed with another secret', async () => {
    const response = await post('/any', standardDelivery(OTHER_SECRET));
    expect(response.status).toBe(401);
    expect(await errorOf(response)).toMatchObject({ code: 'signature_mismatch' });
  });

  it('verifies v1a with the JWKS a lookup returns', async () => {
    expect((await post('/public-keys', standardDelivery(OTHER_SECRET, true))).status).toBe(204);
    const unsigned = await post('/public-keys', standardDelivery(OTHER_SECRET, false));
    expect(unsigned.status).toBe(401);
  });

  it("refuses the spec's header alone when scheme is 'standard', naming the missing header", async () => {
    const response = await post('/standard-only', serviceDelivery());
    expect(response.status).toBe(401);
    const error = await errorOf(response);
    expect(error.code).toBe('missing_header');
    expect(error.message).toContain('webhook-id');
  });

  it('refuses an unknown scheme at setup', () => {
    expect(() => verifyWebhookMiddleware({ secret: SECRET, scheme: 'svix' as 'standard' })).toThrow(
      WebhookVerificationError,
    );
  });
});

describe('the Fetch API helpers verify either scheme', () => {
  const request = (headers: Record<string, string>) =>
    new Request('https://receiver.example/webhooks', { method: 'POST', body: BODY, headers });

  it('verifyWebhookRequest returns the envelope of a Standard Webhooks delivery', async () => {
    await expect(verifyWebhookRequest(request(standardDelivery()), SECRET)).resolves.toEqual(
      JSON.parse(BODY),
    );
    await expect(verifyWebhookRequest(request(standardDelivery(OTHER_SECRET, true)), jwks)).resolves.toEqual(
      JSON.parse(BODY),
    );
  });

  it('refuses a malformed webhook-signature before reading the body', async () => {
    const headers = { ...standardDelivery(), 'webhook-signature': 'v1,' };
    const delivery = request(headers);
    await expect(verifyWebhookRequest(delivery, SECRET)).rejects.toMatchObject({ code: 'malformed_header' });
    expect(delivery.bodyUsed).toBe(false);
  });

  it("webhookHandler answers a Standard Webhooks delivery, and 401 when scheme 'service' is forced", async () => {
    const handle = (scheme?: 'service') =>
      webhookHandler(SECRET, () => new Response(null, { status: 204 }), scheme ? { scheme } : undefined);
    expect((await handle()(request(standardDelivery()))).status).toBe(204);
    const refused = await handle('service')(request(standardDelivery()));
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as VerificationErrorBody).error.code).toBe('missing_header');
  });

  it('webhookHandler checks a static JWKS at setup', () => {
    expect(() => webhookHandler({ keys: [] }, () => new Response(null))).toThrow(WebhookVerificationError);
  });
});
