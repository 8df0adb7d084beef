import { signWebhook, type WebhookEnvelope } from '@svc/webhooks-verify';
import { type VerificationErrorBody, verifyWebhookRequest, webhookHandler } from '@svc/webhooks-verify/fetch';
import { describe, expect, it, vi } from 'vitest';
import { BODY, NOW, OTHER_SECRET, SECRET } from './fixtures';

function delivery(
  body: string | Uint8Array = BODY,
  header: string | null = signWebhook(BODY, SECRET, NOW),
): Request {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (header !== null) headers.set('X-Service-Signature', header);
  return new Request('https://receiver.example/webhooks', { method: 'POST', body, headers });
}

const at = { now: NOW };

describe('verifyWebhookRequest', () => {
  it('returns the envelope of a correctly signed Request', async () => {
    await expect(verifyWebhookRequest(delivery(), SECRET, at)).resolves.toEqual(JSON.parse(BODY));
  });

  it('verifies the body bytes as sent, including bytes that are not valid UTF-8', async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"a":"'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('"}'),
    ]);
    const request = delivery(bytes, signWebhook(bytes, SECRET, NOW));
    await expect(verifyWebhookRequest(request, SECRET, at)).resolves.toEqual({ a: '\ufffd\ufffd' });
  });

  it('reads the header case-insensitively and rejects a missing one', async () => {
    await expect(verifyWebhookRequest(delivery(BODY, null), SECRET, at)).rejects.toMatchObject({
      code: 'missing_header',
    });
  });

  it('accepts a secret chosen per request', async () => {
    const pick = (request: Request) =>
      new URL(request.url).pathname === '/webhooks' ? SECRET : OTHER_SECRET;
    await expect(verifyWebhookRequest(delivery(), pick, at)).resolves.toMatchObject({
      webhookId: 'whdel_01',
    });
  });

  it('rejects with invalid_body and says so when the body was already read', async () => {
    const request = delivery();
    await request.text();
    await expect(verifyWebhookRequest(request, SECRET, at)).rejects.toMatchObject({
      code: 'invalid_body',
      message: expect.stringContaining('already read'),
    });
  });
});

describe('webhookHandler', () => {
  it('calls the handler with the envelope and returns its response', async () => {
    const seen: WebhookEnvelope[] = [];
    const handle = webhookHandler(
      SECRET,
      (envelope) => {
        seen.push(envelope);
        return new Response(null, { status: 204 });
      },
      at,
    );
    expect((await handle(delivery())).status).toBe(204);
    expect(seen).toEqual([JSON.parse(BODY)]);
  });

  it('answers 401 JSON and does not call the handler when verification fails', async () => {
    let calls = 0;
    const handle = webhookHandler(
      OTHER_SECRET,
      () => {
        calls++;
        return new Response(null, { status: 204 });
      },
      at,
    );
    const response = await handle(delivery());
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as VerificationErrorBody;
    expect(body.error.code).toBe('signature_mismatch');
    expect(calls).toBe(0);
  });

  it('lets errors thrown by the handler propagate', async () => {
    const handle = webhookHandler(
      SECRET,
      () => {
        throw new Error('handler bug');
      },
      at,
    );
    await expect(handle(delivery())).rejects.toThrow('handler bug');
  });

  it('checks a static secret when it is created, so a missing one fails at startup', () => {
    expect(() => webhookHandler('', () => new Response())).toThrow(
      expect.objectContaining({ code: 'invalid_secret' }),
    );
  });

  it('checks the options when it is created, so a bad one fails at startup with invalid_option', () => {
    expect(() => webhookHandler(SECRET, () => new Response(), { toleranceMs: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_option', message: expect.stringContaining('toleranceMs') }),
    );
  });

  it('passes web_crypto_unavailable to the platform instead of answering 401: the runtime is at fault', async () => {
    const handle = webhookHandler(SECRET, () => new Response(null, { status: 204 }), at);
    vi.stubGlobal('crypto', undefined);
    try {
      await expect(handle(delivery())).rejects.toMatchObject({ code: 'web_crypto_unavailable' });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('types metadata through the event map parameter', async () => {
    const handle = webhookHandler<{ quote_approved: { quoteStatus: string } }>(
      SECRET,
      (envelope) => new Response(envelope.metadata.quoteStatus),
      at,
    );
    expect(await (await handle(delivery())).text()).toBe('approved');
  });
});
