import type { SignatureScheme } from '@svc/webhooks-core';

/**
 * The few lines a receiver needs to check a delivery with `@svc/webhooks-verify`, for the agency's scheme:
 * one header for the service signature, all of them when Standard Webhooks headers may come.
 */
export function verifySnippet(scheme: SignatureScheme): string {
  const signature = scheme === 'service' ? "req.headers['x-service-signature']" : 'req.headers';
  return `import { verifyWebhook } from '@svc/webhooks-verify';

// Throws when the signature or the timestamp does not match.
const event = verifyWebhook(
  rawBody,
  ${signature},
  process.env.WEBHOOK_SECRET,
);`;
}
