import type { AddressInfo } from 'node:net';
import { signWebhook } from '@svc/webhooks-verify';
import { type VerificationErrorBody, verifyWebhookMiddleware } from '@svc/webhooks-verify/express';
import express, { type Request } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY, OTHER_SECRET, SECRET } from './fixtures';

const received: unknown[] = [];
let server: ReturnType<ReturnType<typeof express>['listen']>;
let base: string;

function buildApp() {
  const app = express();
  const raw = express.raw({ type: 'application/json' });
  const ok = (req: Request, res: express.Response) => {
    received.push(req.webhook);
    res.status(204).end();
  };
  app.post('/hooks', raw, verifyWebhookMiddleware({ secret: SECRET }), ok);
  app.post('/rotating', raw, verifyWebhookMiddleware({ secrets: [OTHER_SECRET, SECRET] }), ok);
  app.post(
    '/tenants/:tenant/hooks',
    raw,
    verifyWebhookMiddleware<Request>({
      getSecret: async (req) => ({ a: SECRET, b: OTHER_SECRET })[String(req.params.tenant)],
    }),
    ok,
  );
  app.post('/strict', raw, verifyWebhookMiddleware({ secret: SECRET, toleranceMs: 1_000 }), ok);
  // The mistake the spec's troubleshooting section leads with: a JSON parser before verification.
  app.post('/parsed', express.json(), verifyWebhookMiddleware({ secret: SECRET }), ok);
  app.post('/no-parser', verifyWebhookMiddleware({ secret: SECRET }), ok);
  app.post(
    '/failing-lookup',
    raw,
    verifyWebhookMiddleware({
      getSecret: () => {
        throw new Error('secret store down');
      },
    }),
    ok,
  );
  app.use((error: Error, _req: Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ forwarded: error.message });
  });
  return app;
}

beforeAll(async () => {
  server = buildApp().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

async function errorOf(response: Response): Promise<VerificationErrorBody['error']> {
  return ((await response.json()) as VerificationErrorBody).error;
}

const signed = (secret = SECRET, timestamp = Date.now()) => ({
  'X-Service-Signature': signWebhook(BODY, secret, timestamp),
});

describe('verifyWebhookMiddleware in a real Express 5 app', () => {
  it('puts the verified envelope on req.webhook and calls the handler', async () => {
    received.length = 0;
    const response = await post('/hooks', BODY, signed());
    expect(response.status).toBe(204);
    expect(received).toEqual([JSON.parse(BODY)]);
  });

  it('answers 401 with a JSON error body when the signature does not match', async () => {
    received.length = 0;
    const response = await post('/hooks', BODY, signed(OTHER_SECRET));
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const body = await response.json();
    expect(body).toEqual({
      error: { code: 'signature_mismatch', message: expect.stringMatching(/^@svc\/webhooks-verify: /) },
    });
    expect(received).toEqual([]);
  });

  it('answers 401 missing_header when the header is absent', async () => {
    const response = await post('/hooks', BODY);
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe('missing_header');
  });

  it('answers 401 when a single byte of the body differs from what was signed', async () => {
    const response = await post('/hooks', BODY.replace('"attempt":1', '"attempt":2'), signed());
    expect((await errorOf(response)).code).toBe('signature_mismatch');
  });

  it('accepts any of the configured secrets', async () => {
    expect((await post('/rotating', BODY, signed(SECRET))).status).toBe(204);
    expect((await post('/rotating', BODY, signed(OTHER_SECRET))).status).toBe(204);
  });

  it('looks the secret up per request with getSecret', async () => {
    expect((await post('/tenants/a/hooks', BODY, signed(SECRET))).status).toBe(204);
    expect((await post('/tenants/b/hooks', BODY, signed(OTHER_SECRET))).status).toBe(204);
    const wrongTenant = await post('/tenants/b/hooks', BODY, signed(SECRET));
    expect((await errorOf(wrongTenant)).code).toBe('signature_mismatch');
  });

  it('fails closed with 401 invalid_secret when getSecret finds no secret', async () => {
    const response = await post('/tenants/zz/hooks', BODY, signed());
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe('invalid_secret');
  });

  it('applies toleranceMs', async () => {
    const response = await post('/strict', BODY, signed(SECRET, Date.now() - 60_000));
    expect((await errorOf(response)).code).toBe('timestamp_out_of_tolerance');
  });

  it('says plainly that a JSON body parser ran first when req.body is a parsed object', async () => {
    const response = await post('/parsed', BODY, signed());
    expect(response.status).toBe(401);
    const error = await errorOf(response);
    expect(error.code).toBe('invalid_body');
    expect(error.message).toContain('a JSON body parser such as express.json() ran before');
    expect(error.message).toContain("express.raw({ type: 'application/json' })");
  });

  it('reads the raw body itself when no body parser ran', async () => {
    received.length = 0;
    const response = await post('/no-parser', BODY, signed());
    expect(response.status).toBe(204);
    expect(received).toEqual([JSON.parse(BODY)]);
  });

  it('passes errors that are not verification failures to next(error)', async () => {
    const response = await post('/failing-lookup', BODY, signed());
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ forwarded: 'secret store down' });
  });
});

describe('verifyWebhookMiddleware options', () => {
  it.each([
    ['none', {}],
    ['two', { secret: SECRET, getSecret: () => SECRET }],
  ])('throws invalid_option at setup when %s of secret, secrets, getSecret is given', (_label, options) => {
    expect(() => verifyWebhookMiddleware(options as { secret: string })).toThrow(
      expect.objectContaining({ code: 'invalid_option', message: expect.stringContaining('exactly one of') }),
    );
  });

  it('throws invalid_secret at setup when the secret is undefined, as with an unset environment variable', () => {
    expect(() => verifyWebhookMiddleware({ secret: process.env.SVC_UNSET_WEBHOOK_SECRET as string })).toThrow(
      expect.objectContaining({
        code: 'invalid_secret',
        message: expect.stringContaining('No signing secret'),
      }),
    );
  });

  it('throws invalid_secret at setup for the masked secret', () => {
    expect(() => verifyWebhookMiddleware({ secrets: [SECRET, 'service_whsec_********abcd'] })).toThrow(
      expect.objectContaining({ code: 'invalid_secret' }),
    );
  });

  it('throws invalid_option at setup for a negative toleranceMs', () => {
    expect(() => verifyWebhookMiddleware({ secret: SECRET, toleranceMs: -5 })).toThrow(
      expect.objectContaining({ code: 'invalid_option', message: expect.stringContaining('toleranceMs') }),
    );
  });
});
