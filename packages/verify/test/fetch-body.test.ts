import type { Server } from 'node:http';
import { isWebhookVerificationError, signWebhook, WebhookVerificationError } from '@svc/webhooks-verify';
import {
  DEFAULT_MAX_BODY_BYTES,
  type VerificationErrorBody,
  verifyWebhookRequest,
  webhookHandler,
} from '@svc/webhooks-verify/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY, NOW, SECRET } from './fixtures';
import { type Answer, listen, openUpload, type StreamUse, serveFetch, stop, writeForever } from './http';

/*
 * The Fetch helpers refuse an unsigned request before reading its body, and a body over maxBodyBytes as
 * soon as Content-Length or the bytes read say so: on Request objects, and behind a real Node server.
 */

const LIMIT = 4_096;
const at = { now: NOW };

/** The delivery padded with trailing spaces (still the same JSON) to exactly `bytes` bytes. */
function bodyOfLength(bytes: number): string {
  return BODY + ' '.repeat(bytes - BODY.length);
}

/** A body stream that counts the reads asked of it and never ends; pulls only when read (high-water mark 0). */
function endlessBody(chunkBytes = 1_024) {
  const use = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        use.pulls++;
        controller.enqueue(new Uint8Array(chunkBytes).fill(0x20));
      },
      cancel() {
        use.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, use };
}

function request(body: string | ReadableStream<Uint8Array> | null, headers: Record<string, string>): Request {
  return new Request('https://receiver.example/webhooks', {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
    duplex: 'half',
  } as RequestInit);
}

const signed = (body: string) => ({ 'x-service-signature': signWebhook(body, SECRET, NOW) });
const accept = () => new Response(null, { status: 204 });

async function errorOf(response: Response): Promise<VerificationErrorBody['error']> {
  return ((await response.json()) as VerificationErrorBody).error;
}

describe('webhookHandler on Request objects', () => {
  const handle = webhookHandler(SECRET, accept, { ...at, maxBodyBytes: LIMIT });

  it('answers 401 missing_header without reading a body that never ends', async () => {
    const { stream, use } = endlessBody();
    const delivery = request(stream, {});
    const response = await handle(delivery);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await errorOf(response)).code).toBe('missing_header');
    expect(use).toEqual({ pulls: 0, cancelled: false });
    expect(delivery.bodyUsed).toBe(false);
    expect(delivery.body?.locked).toBe(false);
  });

  it('answers 413 payload_too_large from Content-Length alone, without reading the body', async () => {
    const { stream, use } = endlessBody();
    const delivery = request(stream, { ...signed(BODY), 'content-length': String(LIMIT + 1) });
    const response = await handle(delivery);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await errorOf(response)).toEqual({
      code: 'payload_too_large',
      message: expect.stringMatching(/^@svc\/webhooks-verify: .*maxBodyBytes \(4096 bytes\)/),
    });
    expect(use.pulls).toBe(0);
    expect(delivery.bodyUsed).toBe(false);
  });

  it('answers 413 to a body without Content-Length once the bytes read pass the limit, and cancels it', async () => {
    const { stream, use } = endlessBody(1_024);
    const response = await handle(request(stream, signed(BODY)));
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe('payload_too_large');
    // Four 1 KiB chunks fit the limit; the fifth passes it, and reading stops there.
    expect(use).toEqual({ pulls: 5, cancelled: true });
  });

  it('accepts a body of exactly maxBodyBytes and refuses one a byte longer', async () => {
    const atLimit = bodyOfLength(LIMIT);
    expect((await handle(request(atLimit, signed(atLimit)))).status).toBe(204);
    const over = bodyOfLength(LIMIT + 1);
    const response = await handle(request(over, signed(over)));
    expect(response.status).toBe(413);
  });

  it('defaults maxBodyBytes to 1 MiB', async () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1_048_576);
    const byDefault = webhookHandler(SECRET, accept, at);
    const atLimit = bodyOfLength(DEFAULT_MAX_BODY_BYTES);
    expect((await byDefault(request(atLimit, signed(atLimit)))).status).toBe(204);
    const over = bodyOfLength(DEFAULT_MAX_BODY_BYTES + 1);
    expect((await byDefault(request(over, signed(over)))).status).toBe(413);
  });
});

describe('verifyWebhookRequest maxBodyBytes', () => {
  it('rejects with a WebhookVerificationError of code payload_too_large', async () => {
    const over = bodyOfLength(LIMIT + 1);
    const error = await verifyWebhookRequest(request(over, signed(over)), SECRET, {
      ...at,
      maxBodyBytes: LIMIT,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(isWebhookVerificationError(error) && error.code).toBe('payload_too_large');
    expect((error as Error).message).toContain('raise maxBodyBytes');
  });

  it('rejects with invalid_body when the body was taken by a reader before', async () => {
    const delivery = request(BODY, signed(BODY));
    delivery.body?.getReader();
    await expect(verifyWebhookRequest(delivery, SECRET, at)).rejects.toMatchObject({
      code: 'invalid_body',
      message: expect.stringContaining('already read'),
    });
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1mb'])(
    'rejects maxBodyBytes %s with invalid_option, before reading the body',
    async (maxBodyBytes) => {
      const { stream, use } = endlessBody();
      const options = { ...at, maxBodyBytes: maxBodyBytes as number };
      await expect(
        verifyWebhookRequest(request(stream, signed(BODY)), SECRET, options),
      ).rejects.toMatchObject({
        code: 'invalid_option',
        message: expect.stringContaining('maxBodyBytes must be a positive integer'),
      });
      expect(use.pulls).toBe(0);
      expect(() => webhookHandler(SECRET, accept, options)).toThrow(
        expect.objectContaining({ code: 'invalid_option' }),
      );
    },
  );
});

describe('webhookHandler behind a real Node server', () => {
  const uses: StreamUse[] = [];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    // A real clock: these deliveries are signed now.
    server = serveFetch(webhookHandler(SECRET, accept, { maxBodyBytes: LIMIT }), uses);
    base = await listen(server);
  });

  afterAll(async () => {
    await stop(server);
  });

  const json = { 'content-type': 'application/json' };
  const signedNow = (body: string) => ({ 'x-service-signature': signWebhook(body, SECRET) });
  const codeOf = (answer: Answer) => (JSON.parse(answer.body) as VerificationErrorBody).error.code;

  it('answers 401 missing_header to a body that never ends, leaving the socket unread', async () => {
    uses.length = 0;
    const upload = openUpload(`${base}/webhooks`, json);
    writeForever(upload.request, Buffer.alloc(16_384, 0x20));
    const answer = await upload.answer;
    expect(answer.status).toBe(401);
    expect(codeOf(answer)).toBe('missing_header');
    expect(uses).toEqual([{ pulled: false, readableDidRead: false }]);
    upload.request.destroy();
  });

  it('answers 413 when Content-Length is over the limit, before reading a byte', async () => {
    uses.length = 0;
    const upload = openUpload(`${base}/webhooks`, {
      ...json,
      ...signedNow(BODY),
      'content-length': String(LIMIT + 1),
    });
    const answer = await upload.answer;
    expect(answer.status).toBe(413);
    expect(codeOf(answer)).toBe('payload_too_large');
    expect(uses).toEqual([{ pulled: false, readableDidRead: false }]);
    upload.request.destroy();
  });

  it('answers 413 to a chunked body that never ends once it passes the limit', async () => {
    const upload = openUpload(`${base}/webhooks`, { ...json, ...signedNow(BODY) });
    writeForever(upload.request, Buffer.alloc(1_024, 0x20));
    const answer = await upload.answer;
    expect(answer.status).toBe(413);
    expect(codeOf(answer)).toBe('payload_too_large');
    upload.request.destroy();
  });

  it('accepts a chunked body of exactly the limit', async () => {
    const body = bodyOfLength(LIMIT);
    const upload = openUpload(`${base}/webhooks`, { ...json, ...signedNow(body) });
    for (let offset = 0; offset < body.length; offset += 1_000)
      upload.request.write(body.slice(offset, offset + 1_000));
    upload.request.end();
    expect((await upload.answer).status).toBe(204);
    upload.request.destroy();
  });
});
