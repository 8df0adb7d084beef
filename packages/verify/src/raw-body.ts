import { WebhookVerificationError } from './errors';

/**
 * The request body exactly as received: a string, or bytes (`Buffer` is a `Uint8Array`). Never a parsed
 * object: re-serialising JSON changes whitespace and key order, so the signature no longer matches.
 */
export type WebhookRawBody = string | Uint8Array | ArrayBuffer;

/** How to get the raw body in Express; every body-related message ends with it. */
export const EXPRESS_RAW_HINT =
  "In Express, mount express.raw({ type: 'application/json' }) on the webhook route instead of express.json().";

/**
 * Returns the body as a string or a byte view, or throws `invalid_body` naming the fix when it is
 * anything else (most often: an object a JSON body parser produced).
 */
export function readRawBody(body: unknown): string | Uint8Array {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new WebhookVerificationError('invalid_body', describeWrongBody(body));
}

function describeWrongBody(body: unknown): string {
  if (body === undefined || body === null) {
    return `The raw body is ${String(body)}: nothing reached the verifier. ${EXPRESS_RAW_HINT}`;
  }
  if (typeof body === 'object') {
    return (
      'The body is a parsed object, not the raw request body: a JSON body parser ran before verification. ' +
      'The signature covers the exact bytes sent, and re-serialised JSON differs from them. ' +
      EXPRESS_RAW_HINT
    );
  }
  return `The body is a ${typeof body}; pass the raw request body as a string, Buffer or Uint8Array.`;
}
