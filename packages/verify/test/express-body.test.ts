import { Readable } from 'node:stream';
import { signWebhook } from '@svc/webhooks-verify';
import {
  DEFAULT_MAX_BODY_BYTES,
  type VerificationErrorBody,
  verifyWebhookMiddleware,
} from '@svc/webhooks-verify/express';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY, SECRET } from './fixtures';
import { type Answer, listen, openUpload, stop, writeForever } from './http';

/*
 * The middleware reads the body itself: it refuses an unsigned request before reading any of it, and a
 * body over maxBodyBytes as soon as Content-Length or the bytes read say so. Through a real Express app.
 */

const LIMIT = 4_096;

/** The delivery padded with trailing spaces (still the same JSON) to exactly `bytes` bytes. */
function bodyOfLength(bytes: number): string {
  return BODY + ' '.repeat(bytes - BODY.length);
}

/** The state of the request stream when the middleware answered. */
interface StreamAtAnswer {
  status: number;
  readableDidRead: boolean;
  readableFlowing: boolean | null;
}

const atAnswer: StreamAtAnswer[] = [];
const bodies: unknown[] = [];

/** Records the request stream's state at the moment the middleware picks its status, before Node touches it. */
const probe: RequestHandler = (req, res, next) => {
  const status = res.status.bind(res);
  res.status = (code: number) => {
    atAnswer.push({
      status: code,
      readableDidRead: req.readableDidRead,
      readableFlowing: req.readableFlowing,
    });
    return status(code);
  };
  next();
};

function buildApp() {
  const app = express();
  const ok = (req: Request, res: Response) => {
    bodies.push(req.body);
    res.status(204).end();
  };
  app.post('/hooks', probe, verifyWebhookMiddleware({ secret: SECRET }), ok);
  app.post('/small', probe, verifyWebhookMiddleware({ secret: SECRET, maxBodyBytes: LIMIT }), ok);
  const upstream = { type: 'application/json', limit: '1mb' };
  app.post(
    '/raw-small',
    express.raw(upstream),
    verifyWebhookMiddleware({ secret: SECRET, maxBodyBytes: LIMIT }),
    ok,
  );
  app.post(
    '/text-small',
    express.text(upstream),
    verifyWebhookMiddleware({ secret: SECRET, maxBodyBytes: LIMIT }),
    ok,
  );
  return app;
}

let server: ReturnType<ReturnType<typeof express>['listen']>;
let base: string;

beforeAll(async () => {
  server = buildApp().listen(0, '127.0.0.1');
  base = await listen(server);
});

afterAll(async () => {
  await stop(server);
});

const json = { 'content-type': 'application/json' };
const signedFor = (body: string) => ({ 'x-service-signature': signWebhook(body, SECRET) });

function errorOf(answer: Answer): VerificationErrorBody['error'] {
  return (JSON.parse(answer.body) as VerificationErrorBody).error;
}

/** Posts a complete body with its Content-Length, as the service does. */
async function post(path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const upload = openUpload(`${base}${path}`, {
    ...json,
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  upload.request.end(body);
  return upload.answer;
}

describe('verifyWebhookMiddleware refuses an unsigned request before reading its body', () => {
  it.each([
    ['missing_header', {}],
    ['malformed_header', { 'x-service-signature': 't=soon,v1=zz' }],
  ])('answers 401 %s to a body that never ends, leaving the stream unread', async (code, headers) => {
    atAnswer.length = 0;
    const upload = openUpload(`${base}/hooks`, { ...json, ...headers });
    writeForever(upload.request, Buffer.alloc(16_384, 0x20));
    const answer = await upload.answer;
    expect(answer.status).toBe(401);
    expect(answer.headers['content-type']).toMatch(/application\/json/);
    expect(errorOf(answer).code).toBe(code);
    expect(atAnswer).toEqual([{ status: 401, readableDidRead: false, readableFlowing: null }]);
    // The rest of the body is not read off for keep-alive: the connection is closed after the answer.
    expect(answer.headers.connection).toBe('close');
    await upload.closed;
  });

  it('never pulls from a request stream that records its reads', async () => {
    let reads = 0;
    const stream = new Readable({
      read() {
        reads++;
      },
    });
    const outcome = await runMiddleware(asRequest(stream, {}));
    expect(outcome).toMatchObject({ status: 401, code: 'missing_header' });
    expect(reads).toBe(0);
    expect(stream.readableFlowing).toBe(null);
  });
});

/** A Node stream dressed as the request Express would pass. */
function asRequest(stream: Readable, headers: Record<string, string>, body?: unknown) {
  return Object.assign(stream, { headers: { 'content-type': 'application/json', ...headers }, body });
}

/** Runs the middleware on `req` with a minimal response; resolves with its answer, or `next` and req.body. */
function runMiddleware(req: ReturnType<typeof asRequest>) {
  return new Promise<{ status: number; code?: string; body?: unknown }>((resolve) => {
    const res = {
      status: (status: number) => ({
        json: (answer: VerificationErrorBody) => resolve({ status, code: answer.error.code }),
      }),
    };
    verifyWebhookMiddleware({ secret: SECRET })(req, res, () => resolve({ status: 0, body: req.body }));
  });
}

describe('verifyWebhookMiddleware on request streams', () => {
  it("reads the stream when Express 4's body parsers left their {} placeholder on an unread request", async () => {
    const req = asRequest(Readable.from([Buffer.from(BODY)]), signedFor(BODY), {});
    const outcome = await runMiddleware(req);
    expect(outcome.status).toBe(0);
    expect(Buffer.isBuffer(outcome.body) && outcome.body.toString('utf8')).toBe(BODY);
  });

  it('answers invalid_body, instead of waiting forever, when something else already read the stream', async () => {
    const stream = Readable.from([Buffer.from(BODY)]);
    for await (const _chunk of stream) {
      // another middleware reads the body and keeps it to itself
    }
    const outcome = await runMiddleware(asRequest(stream, signedFor(BODY)));
    expect(outcome).toEqual({ status: 401, code: 'invalid_body' });
  });

  it('answers invalid_body when the body breaks off (the client hung up)', async () => {
    const stream = new Readable({ read() {} });
    const req = asRequest(stream, signedFor(BODY));
    const outcome = runMiddleware(req);
    stream.push(Buffer.from(BODY.slice(0, 10)));
    setImmediate(() => stream.destroy(new Error('aborted')));
    expect(await outcome).toEqual({ status: 401, code: 'invalid_body' });
  });
});

describe('verifyWebhookMiddleware maxBodyBytes', () => {
  it(`defaults to 1 MiB (${DEFAULT_MAX_BODY_BYTES} bytes)`, () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1_048_576);
  });

  it('answers 413 payload_too_large when Content-Length is over the default, before reading a byte', async () => {
    atAnswer.length = 0;
    const upload = openUpload(`${base}/hooks`, {
      ...json,
      ...signedFor(BODY),
      'content-length': String(DEFAULT_MAX_BODY_BYTES + 1),
    });
    const answer = await upload.answer;
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toMatch(/application\/json/);
    expect(errorOf(answer)).toEqual({
      code: 'payload_too_large',
      message: expect.stringMatching(/^@svc\/webhooks-verify: .*maxBodyBytes \(1048576 bytes\)/),
    });
    expect(answer.headers.connection).toBe('close');
    expect(atAnswer).toEqual([{ status: 413, readableDidRead: false, readableFlowing: null }]);
    await upload.closed;
  });

  it('answers 413 to a chunked body without Content-Length as soon as the bytes read pass the limit', async () => {
    const upload = openUpload(`${base}/small`, { ...json, ...signedFor(BODY) });
    const written = writeForever(upload.request, Buffer.alloc(1_024, 0x20));
    const answer = await upload.answer;
    expect(answer.status).toBe(413);
    expect(errorOf(answer).code).toBe('payload_too_large');
    expect(answer.headers.connection).toBe('close');
    // The body never ends: the answer came while the client was still sending, and the connection closes.
    await upload.closed;
    expect(written()).toBeGreaterThan(LIMIT);
  });

  it('accepts a body of exactly maxBodyBytes, sent chunked, and leaves its bytes on req.body', async () => {
    bodies.length = 0;
    const body = bodyOfLength(LIMIT);
    const upload = openUpload(`${base}/small`, { ...json, ...signedFor(body) });
    for (let offset = 0; offset < body.length; offset += 1_000)
      upload.request.write(body.slice(offset, offset + 1_000));
    upload.request.end();
    expect((await upload.answer).status).toBe(204);
    expect(bodies).toHaveLength(1);
    expect(Buffer.isBuffer(bodies[0])).toBe(true);
    expect((bodies[0] as Buffer).toString('utf8')).toBe(body);
  });

  it('refuses a body one byte over maxBodyBytes', async () => {
    const body = bodyOfLength(LIMIT + 1);
    const answer = await post('/small', body, signedFor(body));
    expect(answer.status).toBe(413);
    expect(errorOf(answer).code).toBe('payload_too_large');
  });

  it('accepts a body of exactly the default 1 MiB', async () => {
    const body = bodyOfLength(DEFAULT_MAX_BODY_BYTES);
    const answer = await post('/hooks', body, signedFor(body));
    expect(answer.status).toBe(204);
  });

  it('holds a Buffer express.raw() read upstream to the limit too', async () => {
    const atLimit = bodyOfLength(LIMIT);
    expect((await post('/raw-small', atLimit, signedFor(atLimit))).status).toBe(204);
    const over = bodyOfLength(LIMIT + 1);
    const answer = await post('/raw-small', over, signedFor(over));
    expect(answer.status).toBe(413);
    expect(errorOf(answer).code).toBe('payload_too_large');
    // express.raw() read the whole body: nothing is left on the wire, so the connection may be kept.
    expect(answer.headers.connection).not.toBe('close');
  });

  it('counts the UTF-8 bytes, not the characters, of a string express.text() read upstream', async () => {
    // 2 bytes per "é": the body is over the limit in bytes while under it in characters.
    const body = JSON.stringify({ ...JSON.parse(BODY), pad: 'é'.repeat(LIMIT / 2) });
    expect(body.length).toBeLessThan(LIMIT);
    const answer = await post('/text-small', body, signedFor(body));
    expect(answer.status).toBe(413);
  });
});

describe('verifyWebhookMiddleware maxBodyBytes validation', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1mb'])(
    'throws invalid_option at setup for maxBodyBytes %s',
    (maxBodyBytes) => {
      expect(() => verifyWebhookMiddleware({ secret: SECRET, maxBodyBytes: maxBodyBytes as number })).toThrow(
        expect.objectContaining({
          code: 'invalid_option',
          message: expect.stringContaining('maxBodyBytes must be a positive integer'),
        }),
      );
    },
  );
});
