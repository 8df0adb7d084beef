/**
 * Fetch API helpers of `@svc/webhooks-verify` (`@svc/webhooks-verify/fetch`) for anything built on
 * `Request` / `Response`: Cloudflare Workers, Next.js route handlers, Hono, Deno, Bun. Uses Web Crypto;
 * imports nothing from `node:`.
 *
 * @packageDocumentation
 * @module @svc/webhooks-verify/fetch
 */
import type { WebhookEventMap } from './built-in-events';
import type { WebhookEvent } from './envelope';
import {
  refusalStatus,
  rejectsDelivery,
  toVerificationErrorBody,
  type WebhookVerificationError,
} from './errors';
import {
  type RequestBodyOptions,
  resolveMaxBodyBytes,
  resolveVerifyOptions,
  type VerifyWebhookOptions,
} from './options';
import type { WebhookSecret } from './secret';
import { assertSignedHeaders, checkVerificationKeys } from './signature-scheme';
import type { StandardKeys } from './standard-secret';
import { verifyWebhookAsync } from './web';
import { assertBodyUnread, readRequestBody } from './web-body';

export type { VerificationErrorBody } from './errors';
export type { RequestBodyOptions } from './options';
export { DEFAULT_MAX_BODY_BYTES } from './options';

/** Options of {@link verifyWebhookRequest} and {@link webhookHandler}: the verify options and `maxBodyBytes`. */
export interface VerifyWebhookRequestOptions extends VerifyWebhookOptions, RequestBodyOptions {}

/**
 * A secret (or Standard Webhooks key material: a JWKS and secrets), or a function choosing it per request
 * (e.g. per tenant from the URL).
 */
export type WebhookRequestSecret =
  | WebhookSecret
  | StandardKeys
  | ((request: Request) => WebhookSecret | StandardKeys | Promise<WebhookSecret | StandardKeys>);

/**
 * Handles a verified delivery and answers the service (any 2xx marks it delivered).
 *
 * @typeParam TEvents - event type → metadata type; checking `envelope.eventType` narrows `metadata`
 */
export type WebhookRequestHandler<TEvents extends object = WebhookEventMap> = (
  envelope: WebhookEvent<TEvents>,
  request: Request,
) => Response | Promise<Response>;

/**
 * Reads the request's raw body, verifies it and returns the envelope. Either scheme: Standard Webhooks
 * when the request carries `webhook-signature`, else the spec's `X-Service-Signature`, or the one
 * `options.scheme` names. Consumes the body: do not read it before. A request whose headers are missing
 * or malformed is refused before any of its body is read, and a body over `maxBodyBytes` (1 MiB by default) is refused as
 * soon as its `Content-Length` or the bytes read say so; the body stream is then cancelled, never drained.
 *
 * @typeParam TEvents - event type → metadata type; by default the built-in `WebhookEventMap`
 * @throws {@link @svc/webhooks-verify!WebhookVerificationError} (as a rejection); answer 401, or 413 for
 * `payload_too_large`, except for the codes `invalid_option` and `web_crypto_unavailable` (a bug in the
 * receiver)
 * @example
 * ```ts
 * // Hono
 * app.post('/webhooks', async (c) => {
 *   const envelope = await verifyWebhookRequest(c.req.raw, c.env.WEBHOOK_SECRET);
 *   return c.body(null, 204);
 * });
 * ```
 */
export async function verifyWebhookRequest<TEvents extends object = WebhookEventMap>(
  request: Request,
  secret: WebhookRequestSecret,
  options?: VerifyWebhookRequestOptions,
): Promise<WebhookEvent<TEvents>> {
  const maxBodyBytes = resolveMaxBodyBytes(options?.maxBodyBytes);
  assertBodyUnread(request);
  // Without usable signature headers the request cannot verify, whatever its body: refuse it before
  // reading a byte, so an unsigned sender costs the receiver no memory and no wait for a slow upload.
  assertSignedHeaders(request.headers, options?.scheme);
  const body = await readRequestBody(request, maxBodyBytes);
  const key = typeof secret === 'function' ? await secret(request) : secret;
  return verifyWebhookAsync<TEvents>(body, request.headers, key, options);
}

/**
 * Wraps a handler so it only sees verified deliveries: a failed verification answers 401 with a
 * {@link VerificationErrorBody}, `{ "error": { "code", "message" } }`, and the handler is not called. As
 * with {@link verifyWebhookRequest}, an unsigned request is refused before its body is read, and a body
 * over `maxBodyBytes` (1 MiB by default) is answered 413 `payload_too_large` without reading the rest.
 * Errors the handler throws, and `invalid_option` / `web_crypto_unavailable`, are passed through to the
 * platform.
 *
 * @typeParam TEvents - event type → metadata type; by default the built-in `WebhookEventMap`
 * @throws {@link @svc/webhooks-verify!WebhookVerificationError} at setup: `invalid_secret` for an unusable
 * static secret, `invalid_option` for a bad option
 *
 * @example
 * ```ts
 * // Next.js app/api/webhooks/route.ts
 * export const POST = webhookHandler(process.env.WEBHOOK_SECRET!, async (envelope) => {
 *   await enqueue(envelope);
 *   return new Response(null, { status: 204 });
 * });
 * ```
 */
export function webhookHandler<TEvents extends object = WebhookEventMap>(
  secret: WebhookRequestSecret,
  handler: WebhookRequestHandler<TEvents>,
  options?: VerifyWebhookRequestOptions,
): (request: Request) => Promise<Response> {
  // A static secret and the options are checked now, so a missing or masked secret or a bad option fails at
  // startup, not on every delivery.
  if (typeof secret !== 'function') checkVerificationKeys(secret);
  resolveVerifyOptions(options);
  resolveMaxBodyBytes(options?.maxBodyBytes);
  return async (request) => {
    let envelope: WebhookEvent<TEvents>;
    try {
      envelope = await verifyWebhookRequest<TEvents>(request, secret, options);
    } catch (error) {
      if (rejectsDelivery(error)) return refusal(error);
      throw error;
    }
    return handler(envelope, request);
  };
}

function refusal(error: WebhookVerificationError): Response {
  return new Response(JSON.stringify(toVerificationErrorBody(error)), {
    status: refusalStatus(error),
    headers: { 'content-type': 'application/json' },
  });
}
