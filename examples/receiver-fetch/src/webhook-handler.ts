import type { WebhookEnvelope } from '@svc/webhooks-verify';
import { type WebhookRequestSecret, webhookHandler } from '@svc/webhooks-verify/fetch';

/** Options of {@link createWebhookFetchHandler}. */
export interface WebhookFetchHandlerOptions {
  /** The signing secret, several during a rotation, or a function of the request. */
  secret: WebhookRequestSecret;
  /**
   * Path deliveries are posted to; other paths answer 404.
   * @default '/webhooks'
   */
  path?: string;
  /** Handles a verified delivery. @default does nothing */
  onDelivery?: (envelope: WebhookEnvelope) => void | Promise<void>;
  /** @default console.log */
  log?: (line: string) => void;
}

/**
 * A receiver written against the Fetch API only (`Request` in, `Response` out),
 * so the same function runs on Cloudflare Workers, Deno, Bun, Next.js route
 * handlers or Hono. Verification reads the raw bytes itself: never call
 * `request.json()` before it.
 *
 * @example
 * ```ts
 * export default { fetch: createWebhookFetchHandler({ secret: env.WEBHOOK_SECRET }) }; // a Worker
 * ```
 */
export function createWebhookFetchHandler(
  options: WebhookFetchHandlerOptions,
): (request: Request) => Promise<Response> {
  const path = options.path ?? '/webhooks';
  const log = options.log ?? console.log;
  const verified = webhookHandler(options.secret, async (envelope) => {
    log(`✔ verified ${envelope.eventType} ${envelope.webhookId} attempt ${envelope.attempt}`);
    await options.onDelivery?.(envelope);
    return new Response(null, { status: 204 });
  });
  return async (request) => {
    if (new URL(request.url).pathname !== path) return new Response('Not found', { status: 404 });
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
    const response = await verified(request);
    if (response.status === 401)
      log(
        `✘ rejected ${request.headers.get('x-service-webhook-id') ?? 'a delivery'}: signature did not verify (401)`,
      );
    return response;
  };
}
