/**
 * Express middleware of `@svc/webhooks-verify` (`@svc/webhooks-verify/express`). It uses structural
 * request and response types, so the package has no dependency on Express; it works with Express 4
 * and 5 and anything with the same `req.body` / `res.status().json()` shape.
 *
 * @packageDocumentation
 * @module @svc/webhooks-verify/express
 */
import { Buffer } from 'node:buffer';
import type { WebhookEvent } from './envelope';
import {
  invalidOption,
  payloadTooLarge,
  refusalStatus,
  rejectsDelivery,
  toVerificationErrorBody,
  WebhookVerificationError,
} from './errors';
import { verifyWebhook } from './index';
import { isNodeBodyStream, readNodeBody } from './node-body';
import { resolveMaxBodyBytes, resolveVerifyOptions, type WebhookSignatureScheme } from './options';
import { EXPRESS_RAW_HINT } from './raw-body';
import type { WebhookSecret } from './secret';
import { assertSignedHeaders, checkVerificationKeys, readScheme } from './signature-scheme';
import type { StandardKeys } from './standard-secret';

export type { VerificationErrorBody } from './errors';
export { DEFAULT_MAX_BODY_BYTES } from './options';

declare global {
  // Express declares this open interface for extensions; merging into it types `req.webhook` in handlers.
  namespace Express {
    interface Request {
      /**
       * The verified delivery envelope, set by `verifyWebhookMiddleware`; checking `eventType` narrows
       * `metadata` for the built-in event types.
       */
      webhook?: WebhookEvent;
    }
  }
}

/**
 * The parts of an Express request the middleware reads and writes. The request is also read as a Node
 * stream (`http.IncomingMessage`) when no body parser ran before the middleware.
 */
export interface WebhookMiddlewareRequest {
  /**
   * The raw body when a body parser ran first (`express.raw()`: a `Buffer`; a string also works). When it
   * is unset, the middleware reads the request stream itself and leaves the bytes here, as a `Buffer`.
   */
  body?: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** Set to the verified envelope before `next()` is called. */
  webhook?: WebhookEvent;
}

/** The parts of an Express response the middleware uses to answer 401 or 413. */
export interface WebhookMiddlewareResponse {
  status(code: number): { json(body: unknown): unknown };
  /**
   * Node's `setHeader`: when present, a refusal that leaves body bytes unread also sends
   * `Connection: close`.
   */
  setHeader?(name: string, value: string): unknown;
}

/** Express's `next`. */
export type WebhookMiddlewareNext = (error?: unknown) => void;

/**
 * Looks up the secret (or Standard Webhooks key material) per request, e.g. per tenant from the URL;
 * `undefined` rejects the request.
 */
export type WebhookSecretLookup<TRequest> = (
  req: TRequest,
) => WebhookSecret | StandardKeys | undefined | Promise<WebhookSecret | StandardKeys | undefined>;

/**
 * Where the middleware gets its secret: exactly one of `secret` (a secret, secrets, or Standard Webhooks
 * key material: a JWKS and secrets), `secrets` or `getSecret`.
 */
export type WebhookSecretSource<TRequest> =
  | { secret: WebhookSecret | StandardKeys; secrets?: never; getSecret?: never }
  | { secrets: readonly string[]; secret?: never; getSecret?: never }
  | { getSecret: WebhookSecretLookup<TRequest>; secret?: never; secrets?: never };

/** Options of {@link verifyWebhookMiddleware}. */
export type VerifyWebhookMiddlewareOptions<TRequest = WebhookMiddlewareRequest> =
  WebhookSecretSource<TRequest> & {
    /**
     * How far `t` may lie from now, in milliseconds, in either direction.
     * @default 300_000
     * @example { secret, toleranceMs: 600_000 }
     */
    toleranceMs?: number;
    /**
     * The largest body accepted, in bytes. A larger one is answered 413 `payload_too_large`: as soon as
     * `Content-Length` announces it, before any of it is read, or else as soon as the bytes read pass the
     * limit (the rest is dropped, never buffered). When `express.raw()` ran first, its body's length is
     * checked too (its own `limit`, 100 kB by default, applies before).
     * @default 1_048_576 (1 MiB)
     * @example { secret, maxBodyBytes: 5 * 1_048_576 } // 5 MiB
     */
    maxBodyBytes?: number;
    /**
     * The scheme every delivery must be verified by. Without it each request's headers decide:
     * `webhook-signature` present → Standard Webhooks, else `X-Service-Signature`.
     * @default chosen by the headers present
     * @example { secret, scheme: 'standard' } // refuse deliveries without Standard Webhooks headers
     */
    scheme?: WebhookSignatureScheme;
  };

/** An Express request handler. */
export type WebhookMiddleware<TRequest> = (
  req: TRequest,
  res: WebhookMiddlewareResponse,
  next: WebhookMiddlewareNext,
) => void;

/**
 * Verifies a delivery by its raw body and signature headers: Standard Webhooks when the request carries
 * `webhook-signature`, else the spec's `X-Service-Signature` (or the one `scheme` names). On success it
 * sets `req.webhook` to the envelope and calls `next()`; on failure it answers 401 with a
 * {@link VerificationErrorBody}, `{ "error": { "code", "message" } }`, or 413 for a body over
 * `maxBodyBytes`. Other errors (a throwing `getSecret`) go to `next(error)`.
 *
 * The middleware reads the request body itself, so it can refuse a request whose header is missing or
 * malformed before reading any of it, and stop reading a body as soon as it passes `maxBodyBytes`. A
 * refusal that leaves body bytes unread answers with `Connection: close`, so Node does not have to read
 * off a body the sender may never finish. A body that `express.raw()` already read (`req.body`, a `Buffer`)
 * is used as it is.
 *
 * @throws {@link @svc/webhooks-verify!WebhookVerificationError} at setup: `invalid_option` when not exactly
 * one of `secret`, `secrets` and `getSecret` is given or `toleranceMs`, `maxBodyBytes` or `scheme` is
 * unusable; `invalid_secret` for an unusable static secret.
 *
 * @example
 * ```ts
 * app.post(
 *   '/webhooks',
 *   verifyWebhookMiddleware({ secret: process.env.WEBHOOK_SECRET! }),
 *   (req, res) => {
 *     console.log(req.webhook?.eventType);
 *     res.sendStatus(204);
 *   },
 * );
 * ```
 */
export function verifyWebhookMiddleware<TRequest extends WebhookMiddlewareRequest = WebhookMiddlewareRequest>(
  options: VerifyWebhookMiddlewareOptions<TRequest>,
): WebhookMiddleware<TRequest> {
  const lookup = secretLookup(options);
  const { toleranceMs } = resolveVerifyOptions({ toleranceMs: options.toleranceMs, now: 0 });
  const limits: RequestLimits = {
    toleranceMs,
    maxBodyBytes: resolveMaxBodyBytes(options.maxBodyBytes),
    scheme: readScheme(options.scheme),
  };
  return (req, res, next) => {
    verifyRequest(req, lookup, limits).then(
      (envelope) => {
        req.webhook = envelope;
        next();
      },
      (error: unknown) => {
        if (!rejectsDelivery(error)) {
          next(error);
          return;
        }
        closeIfBodyPending(req, res);
        res.status(refusalStatus(error)).json(toVerificationErrorBody(error));
      },
    );
  };
}

/** The middleware's checked options that apply per request. */
interface RequestLimits {
  toleranceMs: number;
  maxBodyBytes: number;
  scheme: WebhookSignatureScheme | undefined;
}

async function verifyRequest<TRequest extends WebhookMiddlewareRequest>(
  req: TRequest,
  lookup: WebhookSecretLookup<TRequest>,
  { toleranceMs, maxBodyBytes, scheme }: RequestLimits,
): Promise<WebhookEvent> {
  const parsed = bodyAlreadyRead(req);
  // Without usable signature headers the request cannot verify, whatever its body: refuse it before
  // reading a byte, so an unsigned sender costs the receiver no memory and no wait for a slow upload.
  assertSignedHeaders(req.headers, scheme);
  const body =
    parsed === undefined ? await readBodyOnto(req, maxBodyBytes) : assertBodyWithin(parsed, maxBodyBytes);
  const secret = await lookup(req);
  // verifyWebhook fails closed on an undefined secret (invalid_secret).
  return verifyWebhook(body, req.headers, secret as WebhookSecret | StandardKeys, { toleranceMs, scheme });
}

/** Reads the request stream and leaves the bytes on `req.body`, where `express.raw()` would put them. */
async function readBodyOnto(req: WebhookMiddlewareRequest, maxBodyBytes: number): Promise<Buffer> {
  if (!isNodeBodyStream(req)) {
    throw new WebhookVerificationError(
      'invalid_body',
      `req.body is empty and req is not a readable request stream, so there is no body to verify. ${EXPRESS_RAW_HINT}`,
    );
  }
  const body = await readNodeBody(req, maxBodyBytes);
  req.body = body;
  return body;
}

/** Holds a body a parser read upstream to the same limit as one the middleware reads, and returns it. */
function assertBodyWithin(body: string | Uint8Array, maxBodyBytes: number): string | Uint8Array {
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
  if (length > maxBodyBytes) throw payloadTooLarge(maxBodyBytes);
  return body;
}

/**
 * After a refusal that leaves body bytes on the wire (the middleware refused before or while reading),
 * asks Node to close the connection once the answer is sent. Otherwise Node keeps the connection for a
 * next request and first reads off the rest of the body, which a sender may never finish; Fastify does
 * the same for a body it refuses. `complete` is Node's flag for "the whole request has arrived". HTTP/1
 * only: HTTP/2 forbids the header and ends the stream on its own.
 */
function closeIfBodyPending(req: WebhookMiddlewareRequest, res: WebhookMiddlewareResponse): void {
  const { complete, httpVersionMajor } = req as { complete?: unknown; httpVersionMajor?: unknown };
  if (complete === false && httpVersionMajor === 1) res.setHeader?.('connection', 'close');
}

/**
 * Resolves the secret option once, at setup. A static secret is checked here, so a missing environment
 * variable or a masked secret stops the app at boot instead of turning every delivery into a 401.
 */
function secretLookup<TRequest>(
  options: VerifyWebhookMiddlewareOptions<TRequest>,
): WebhookSecretLookup<TRequest> {
  // Counts keys, not values: `{ secret: process.env.UNSET }` must report the missing secret itself.
  const given = SECRET_OPTIONS.filter((key) => key in options);
  if (given.length !== 1) {
    throw invalidOption(
      `verifyWebhookMiddleware needs exactly one of the options secret, secrets or getSecret; got ${
        given.length === 0 ? 'none' : given.join(' and ')
      }.`,
    );
  }
  if (typeof options.getSecret === 'function') return options.getSecret;
  const secret = options.secret ?? options.secrets;
  checkVerificationKeys(secret);
  return () => secret;
}

const SECRET_OPTIONS = ['secret', 'secrets', 'getSecret'] as const;

/**
 * The raw body a parser such as `express.raw()` left on `req.body`, or `undefined` when the middleware has
 * to read the stream itself. Throws `invalid_body` naming the setup mistake when a parser left something
 * else (a parsed object: the exact bytes that were signed are gone).
 */
function bodyAlreadyRead(req: WebhookMiddlewareRequest): string | Uint8Array | undefined {
  const { body } = req;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body === undefined || body === null || isUnreadPlaceholder(req)) return undefined;
  throw new WebhookVerificationError(
    'invalid_body',
    'req.body is a parsed object: a JSON body parser such as express.json() ran before verifyWebhookMiddleware, ' +
      'so the exact bytes that were signed are gone. Take the JSON parser off the webhook route: the middleware ' +
      "reads the raw body itself (or mount express.raw({ type: 'application/json' }) before it).",
  );
}

/**
 * Express 4's body parsers set `req.body = {}` on every request they see, also those whose type they skip
 * without reading. An empty object on a stream nobody read is that placeholder, not a parsed body.
 */
function isUnreadPlaceholder(req: WebhookMiddlewareRequest): boolean {
  const { body } = req;
  return (
    typeof body === 'object' &&
    body !== null &&
    Object.keys(body).length === 0 &&
    isNodeBodyStream(req) &&
    req.readableDidRead === false &&
    req.readableEnded === false
  );
}
