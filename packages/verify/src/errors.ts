/**
 * Why verification failed. Stable: receivers may switch on it, and the helpers put it in their 401 (and
 * 413) bodies.
 *
 * A delivery that cannot be trusted (answer HTTP 401):
 * - `missing_header`: no `X-Service-Signature` header, or an empty one.
 * - `malformed_header`: the header is not `key=value` parts, `t` is not an integer, `v1` is not hex,
 *   or `t` appears twice.
 * - `missing_timestamp`: the header has no `t=` part.
 * - `missing_signature`: the header has no `v1=` part.
 * - `timestamp_out_of_tolerance`: `t` is further from now than the tolerance, in the past or the future.
 * - `signature_mismatch`: no `v1` matches the HMAC of `<t>.<rawBody>` under any given secret.
 * - `invalid_body`: the body is not raw bytes or a string (it was parsed first), the helpers found it
 *   already read or could not read it to the end (the client hung up), or, for `verifyWebhook`, the
 *   verified body is not a JSON object.
 * - `invalid_secret`: the secret is missing, empty, or the masked form shown by `GET /config`.
 *
 * A delivery the helpers refuse to read (answer HTTP 413):
 * - `payload_too_large`: the body is larger than the helper's `maxBodyBytes`, by its `Content-Length` or
 *   by the bytes read so far.
 *
 * A bug in the receiver's code or runtime, not a bad delivery (fix the code; do not answer 401):
 * - `invalid_option`: an option has an unusable value (a negative or `NaN` `toleranceMs`, a `now` that is
 *   not finite, a signing `timestamp` that is not a non-negative integer, not exactly one of `secret`,
 *   `secrets` and `getSecret`).
 * - `web_crypto_unavailable`: the `/web` or `/fetch` entry runs where `globalThis.crypto.subtle` is missing.
 */
export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'missing_timestamp'
  | 'missing_signature'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'invalid_body'
  | 'invalid_secret'
  | 'payload_too_large'
  | 'invalid_option'
  | 'web_crypto_unavailable';

// A registry symbol, so `instanceof` holds across the package's entry points (each bundle carries its own
// copy of this class) and across its ESM and CommonJS builds.
const brand = Symbol.for('@svc/webhooks-verify/WebhookVerificationError');

// The same prefix convention as the other @svc/webhooks packages: a log line, a stack trace without
// frames or a 401 body stored by the service names the package that refused.
const MESSAGE_PREFIX = '@svc/webhooks-verify: ';

/**
 * Every error the package throws on purpose. Answer HTTP 401 when you catch it (413 for
 * `payload_too_large`), except for the codes `invalid_option` and `web_crypto_unavailable`, which report a
 * bug in the receiver (see {@link WebhookVerificationErrorCode}). The message starts with
 * `@svc/webhooks-verify: `.
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
    super(MESSAGE_PREFIX + message, options);
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

const RECEIVER_BUG_CODES: ReadonlySet<WebhookVerificationErrorCode> = new Set([
  'invalid_option',
  'web_crypto_unavailable',
]);

/** Whether the helpers answer `error` themselves: a rejected delivery, not a bug in the receiver. */
export function rejectsDelivery(error: unknown): error is WebhookVerificationError {
  return isWebhookVerificationError(error) && !RECEIVER_BUG_CODES.has(error.code);
}

// The one place a code becomes an HTTP status: every rejected delivery is a 401 except a body refused for
// its size, which is a 413 so that the sender (and any proxy log) sees why without reading the body.
const REFUSAL_STATUS: Partial<Record<WebhookVerificationErrorCode, number>> = { payload_too_large: 413 };

/** The status the helpers answer a rejected delivery with: 413 for `payload_too_large`, otherwise 401. */
export function refusalStatus(error: WebhookVerificationError): number {
  return REFUSAL_STATUS[error.code] ?? 401;
}

/** An option the caller passed has a value the package cannot work with. */
export function invalidOption(message: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_option', message);
}

/** The error for a signature that matches no secret, listing the causes in the order they occur in practice. */
export function signatureMismatch(secretCount: number): WebhookVerificationError {
  const secrets = secretCount === 1 ? 'the secret' : `any of the ${secretCount} secrets`;
  return new WebhookVerificationError(
    'signature_mismatch',
    `No v1 signature matches the HMAC-SHA256 of "<t>.<raw body>" under ${secrets}. Check that you verify ` +
      'the raw body exactly as received (not JSON that was parsed and re-serialised, and not a body that ' +
      'middleware altered), and that the secret is the current one: after a rotation only the new secret ' +
      'works (pass [newSecret, oldSecret] while you switch over).',
  );
}

/** The error for a body over `maxBodyBytes`, found from its `Content-Length` or while reading it. */
export function payloadTooLarge(maxBodyBytes: number): WebhookVerificationError {
  return new WebhookVerificationError(
    'payload_too_large',
    `The request body is larger than maxBodyBytes (${maxBodyBytes} bytes) and was refused without reading ` +
      'the rest. Deliveries are small JSON envelopes; if the ones you expect are larger, raise maxBodyBytes ' +
      'on verifyWebhookMiddleware or webhookHandler.',
  );
}

/**
 * The JSON body `verifyWebhookMiddleware` and `webhookHandler` answer a failed verification with
 * (status 401, or 413 for `payload_too_large`): the `{ error: { code, message } }` shape every error of
 * the service uses.
 */
export interface VerificationErrorBody {
  error: {
    /** The {@link WebhookVerificationErrorCode}. */
    code: WebhookVerificationErrorCode;
    /** The error's message; it never contains the secret. */
    message: string;
  };
}

/** Builds the 401 / 413 body from a verification error. */
export function toVerificationErrorBody(error: WebhookVerificationError): VerificationErrorBody {
  return { error: { code: error.code, message: error.message } };
}
