/**
 * Why a delivery failed verification. Stable: receivers may switch on it, and the
 * helpers put it in their 401 bodies.
 *
 * - `missing_header`: no `X-Service-Signature` header, or an empty one.
 * - `malformed_header`: the header is not `key=value` parts, `t` is not an integer, `v1` is not hex,
 *   or `t` appears twice.
 * - `missing_timestamp`: the header has no `t=` part.
 * - `missing_signature`: the header has no `v1=` part.
 * - `timestamp_out_of_tolerance`: `t` is further from now than the tolerance, in the past or the future.
 * - `signature_mismatch`: no `v1` matches the HMAC of `<t>.<rawBody>` under any given secret.
 * - `invalid_body`: the body is not raw bytes or a string (it was parsed first), or, for
 *   `verifyWebhook`, the verified body is not a JSON object.
 * - `invalid_secret`: the secret is missing, empty, or the masked form shown by `GET /config`.
 */
export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'missing_timestamp'
  | 'missing_signature'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'invalid_body'
  | 'invalid_secret';

// A registry symbol, so `instanceof` holds across the package's entry points (each bundle carries its own
// copy of this class) and across its ESM and CommonJS builds.
const brand = Symbol.for('@svc/webhooks-verify/WebhookVerificationError');

/**
 * Thrown when a delivery cannot be trusted. Answer HTTP 401 when you catch it.
 *
 * @example
 * ```ts
 * try {
 *   verifyWebhook(rawBody, header, secret);
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) console.warn(error.code, error.message);
 *   throw error;
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  /** Stable machine-readable reason; the message is for people and may change. */
  readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    Object.defineProperty(this, brand, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isWebhookVerificationError(value);
  }
}

/**
 * Type guard equivalent to `instanceof WebhookVerificationError`, for code that prefers a function.
 */
export function isWebhookVerificationError(value: unknown): value is WebhookVerificationError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}
