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
import { rejectsDelivery, toVerificationErrorBody, WebhookVerificationError } from './errors';
import { SIGNATURE_HEADER } from './header';
import { resolveVerifyOptions, type VerifyWebhookOptions } from './options';
import { readSecrets, type WebhookSecret } from './secret';
import { verifyWebhookAsync } from './web';

export type { VerificationErrorBody } from './errors';

/** A secret, or a function choosing it per request (e.g. per tenant from the URL). */
export type WebhookRequestSecret =
  | WebhookSecret
  | ((request: Request) => WebhookSecret | Promise<WebhookSecret>);

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
 * Reads the request's raw body, verifies it with its `X-Service-Signature` header and returns the
 * envelope. Consumes the body: do not read it before.
 *
 * @typeParam TEvents - event type → metadata type; by default the built-in `WebhookEventMap`
 * @throws {@link @svc/webhooks-verify!WebhookVerificationError} (as a rejection); answer 401, except for
 * the codes `invalid_option` and `web_crypto_unavailable` (a bug in the receiver)
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
  options?: VerifyWebhookOptions,
): Promise<WebhookEvent<TEvents>> {
  if (request.bodyUsed) {
    throw new WebhookVerificationError(
      'invalid_body',
      'The request body was already read (request.json() or request.text() ran first). Verify before reading ' +
        'it, or pass the text you read to verifyWebhookAsync.',
    );
  }
  // Bytes, not request.text(): decoding would replace invalid UTF-8 and change what was signed.
  const body = new Uint8Array(await request.arrayBuffer());
  const key = typeof secret === 'function' ? await secret(request) : secret;
  return verifyWebhookAsync<TEvents>(body, request.headers.get(SIGNATURE_HEADER), key, options);
}

/**
 * Wraps a handler so it only sees verified deliveries: a failed verification answers 401 with a
 * {@link VerificationErrorBody}, `{ "error": { "code", "message" } }`, and the handler is not called.
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
  options?: VerifyWebhookOptions,
): (request: Request) => Promise<Response> {
  // A static secret and the options are checked now, so a missing or masked secret or a bad option fails at
  // startup, not on every delivery.
  if (typeof secret !== 'function') readSecrets(secret);
  resolveVerifyOptions(options);
  return async (request) => {
    let envelope: WebhookEvent<TEvents>;
    try {
      envelope = await verifyWebhookRequest<TEvents>(request, secret, options);
    } catch (error) {
      if (rejectsDelivery(error)) return unauthorized(error);
      throw error;
    }
    return handler(envelope, request);
  };
}

function unauthorized(error: WebhookVerificationError): Response {
  return new Response(JSON.stringify(toVerificationErrorBody(error)), {
    status: 401,
    headers: { 'content-type': 'application/json' },
  });
}
