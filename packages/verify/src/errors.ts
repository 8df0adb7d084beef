/**
 * Why verification failed. Stable: receivers may switch on it, and the helpers put it in their 401 (and
 * 413) bodies. The same codes serve the spec's `X-Service-Signature` and Standard Webhooks.
 *
 * A delivery that cannot be trusted (answer HTTP 401):
 * - `missing_header`: no `X-Service-Signature` header, or an empty one; for Standard Webhooks, no (or an
 *   empty) `webhook-id`, `webhook-timestamp` or `webhook-signature`.
 * - `malformed_header`: the header is not `key=value` parts, `t` is not an integer, `v1` is not hex,
 *   or `t` appears twice; for Standard Webhooks, `webhook-timestamp` is not integer seconds or a
 *   `v1` / `v1a` entry is empty or not base64.
 * - `missing_timestamp`: the header has no `t=` part.
 * - `missing_signature`: the header has no `v1=` part; for Standard Webhooks, `webhook-signature` has no
 *   `v1` or `v1a` entry (only unknown versions such as `v2`).
 * - `timestamp_out_of_tolerance`: `t` (or `webhook-timestamp`) is further from now than the tolerance,
 *   in the past or the future.
 * - `signature_mismatch`: no `v1` matches the HMAC of `<t>.<rawBody>` under any given secret; for
 *   Standard Webhooks, no `v1` matches the HMAC of `<id>.<seconds>.<rawBody>` and no `v1a` verifies
 *   under any given public key.
 * - `invalid_body`: the body is not raw bytes or a string (it was parsed first), the helpers found it
 *   already read or could not read it to the end (the client hung up), or, for `verifyWebhook`, the
 *   verified body is not a JSON object.
 * - `invalid_secret`: the secret is missing, empty, or the masked form shown by `GET /config`; a key is
 *   not in a form this package reads (`whsec_` with nothing or no base64 after it, a damaged `whpk_`
 *   key, a `whsk_` private key given to verify); or the signature matches only when a key is read the
 *   wrong way (the hex secret read as base64, or the `whsec_` form used as plain text), which the
 *   message names. Such a delivery is never accepted.
 *
 * A delivery the helpers refuse to read (answer HTTP 413):
 * - `payload_too_large`: the body is larger than the helper's `maxBodyBytes`, by its `Content-Length` or
 *   by the bytes read so far.
 *
 * A bug in the receiver's code or runtime, not a bad delivery (fix the code; do not answer 401):
 * - `invalid_option`: an option has an unusable value (a negative or `NaN` `toleranceMs`, a `now` that is
 *   not finite, a signing `timestamp` that is not a non-negative integer, not exactly one of `secret`,
 *   `secrets` and `getSecret`, a `scheme` other than `'service'` or `'standard'`).
 * - `web_crypto_unavailable`: the `/web` or `/fetch` entry runs where `globalThis.crypto.subtle` is
 *   missing, or where it cannot do Ed25519 (needed for `v1a`).
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

/** How many signatures of each version a Standard Webhooks header carried, and how many keys were tried. */
export interface StandardMismatchCounts {
  v1: number;
  v1a: number;
  hmacKeys: number;
  publicKeys: number;
}

/**
 * The error for Standard Webhooks signatures that match no key. When the header's versions and the keys
 * given cannot meet (only `v1` signatures and only public keys, or the reverse), it says so first.
 */
export function standardSignatureMismatch(counts: StandardMismatchCounts): WebhookVerificationError {
  const { v1, v1a, hmacKeys, publicKeys } = counts;
  if (hmacKeys === 0 && v1a === 0) {
    return new WebhookVerificationError(
      'signature_mismatch',
      'The webhook-signature header carries only v1 (HMAC-SHA256) signatures, and only public keys (whpk_) ' +
        'were given, which verify v1a. Pass the signing secret (hex, or its whsec_ form) too.',
    );
  }
  if (publicKeys === 0 && v1 === 0) {
    return new WebhookVerificationError(
      'signature_mismatch',
      'The webhook-signature header carries only v1a (Ed25519) signatures, and only secrets were given, ' +
        'which verify v1. Pass the agency’s public keys too: the JWKS from GET /public-keys/:agencyId.',
    );
  }
  const failed = [
    v1 > 0 && hmacKeys > 0
      ? `no v1 signature matches the HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>" under ${count(hmacKeys, 'secret')}`
      : '',
    v1a > 0 && publicKeys > 0 ? `no v1a signature verifies under ${count(publicKeys, 'public key')}` : '',
  ].filter((part) => part !== '');
  return new WebhookVerificationError(
    'signature_mismatch',
    `${capitalise(failed.join(', and '))}. Check that you verify the raw body exactly as received (not JSON ` +
      'that was parsed and re-serialised), with the delivery’s own headers, and that the keys are current: ' +
      'after a secret rotation only the new secret works (pass [newSecret, oldSecret] while you switch over); ' +
      'after a signing-key rotation fetch the JWKS again.',
  );
}

function count(n: number, noun: string): string {
  return n === 1 ? `the ${noun}` : `any of the ${n} ${noun}s`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
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
