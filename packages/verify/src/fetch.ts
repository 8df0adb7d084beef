/**
 * Fetch API helpers of `@svc/webhooks-verify` (`@svc/webhooks-verify/fetch`) for anything built on
 * `Request` / `Response`: Cloudflare Workers, Next.js route handlers, Hono, Deno, Bun. Uses Web Crypto;
 * imports nothing from `node:`.
 *
 * @packageDocumentation
 * @module @svc/webhooks-verify/fetch
 */
import { SIGNATURE_HEADER } from './constants';
import type { WebhookEnvelope } from './envelope';
import { toErrorBody } from './error-body';
import { isWebhookVerificationError, WebhookVerificationError } from './errors';
import type { VerifyWebhookOptions } from './options';
import { readSecrets, type WebhookSecret } from './secret';
import { verifyWebhookAsync } from './web';

export type { WebhookErrorBody } from './error-body';

/** A secret, or a function choosing it per request (e.g. per tenant from the URL). */
export type WebhookRequestSecret =
  | WebhookSecret
  | ((request: Request) => WebhookSecret | Promise<WebhookSecret>);

/** Handles a verified delivery and answers the service (any 2xx marks it delivered). */
export type WebhookRequestHandler<TMetadata> = (
  envelope: WebhookEnvelope<TMetadata>,
  request: Request,
) => Response | Promise<Response>;

/**
 * Reads the request's raw body, verifies it with its `X-Service-Signature` header and returns the
 * envelope. Consumes the body: do not read it before.
 *
 * @throws {@link @svc/webhooks-verify!WebhookVerificationError} (as a rejection); answer 401
 * @example
 * ```ts
 * // Hono
 * app.post('/webhooks', async (c) => {
 *   const envelope = await verifyWebhookRequest(c.req.raw, c.env.WEBHOOK_SECRET);
 *   return c.body(null, 204);
 * });
 * ```
 */
export async function verifyWebhookRequest<TMetadata = Record<string, unknown>>(
  request: Request,
  secret: WebhookRequestSecret,
  options?: VerifyWebhookOptions,
): Promise<WebhookEnvelope<TMetadata>> {
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
  return verifyWebhookAsync<TMetadata>(body, request.headers.get(SIGNATURE_HEADER), key, options);
}

/**
 * Wraps a handler so it only sees verified deliveries: a failed verification answers 401 with
 * `{ "error": { "code", "message" } }` and the handler is not called. Errors the handler throws are
 * passed through to the platform.
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
export function webhookHandler<TMetadata = Record<string, unknown>>(
  secret: WebhookRequestSecret,
  handler: WebhookRequestHandler<TMetadata>,
  options?: VerifyWebhookOptions,
): (request: Request) => Promise<Response> {
  // A static secret is checked now, so a missing or masked one fails at startup, not on every delivery.
  if (typeof secret !== 'function') readSecrets(secret);
  return async (request) => {
    let envelope: WebhookEnvelope<TMetadata>;
    try {
      envelope = await verifyWebhookRequest<TMetadata>(request, secret, options);
    } catch (error) {
      if (isWebhookVerificationError(error)) return unauthorized(error);
      throw error;
    }
    return handler(envelope, request);
  };
}

function unauthorized(error: WebhookVerificationError): Response {
  return new Response(JSON.stringify(toErrorBody(error)), {
    status: 401,
    headers: { 'content-type': 'application/json' },
  });
}
