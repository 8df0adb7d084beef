/**
 * Signing secrets: 256 random bits written as 64 lowercase hex characters. The
 * HMAC key is that string's UTF-8 bytes, which is what a receiver naturally
 * passes to `createHmac`. Only the masked form is ever shown after creation.
 */

/** Prefix of a masked signing secret (spec: Webhook configuration). */
export const SIGNING_SECRET_MASK_PREFIX = 'service_whsec_';

/** The eight mask characters between the prefix and the visible tail. */
const MASK = '********';

/** How many trailing characters of the secret a masked form shows. */
const VISIBLE_TAIL = 4;

/**
 * Below this length the tail would give away too large a share of the secret, so
 * nothing is shown. Generated secrets are 64 characters; this guards odd inputs.
 */
const MIN_LENGTH_WITH_TAIL = 16;

const SECRET_BYTES = 32;

/** A masked secret as {@link maskSigningSecret} writes it. */
const MASKED_PATTERN = /^service_whsec_\*{8}[\s\S]{0,4}$/;

/**
 * Generates a new signing secret: 32 bytes from `crypto.getRandomValues`, as 64
 * lowercase hex characters.
 *
 * @example
 * ```ts
 * generateSigningSecret(); // '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'
 * ```
 */
export function generateSigningSecret(): string {
  const bytes = new Uint8Array(SECRET_BYTES);
  globalThis.crypto.getRandomValues(bytes);
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * The form of a secret that reads may show: `service_whsec_`, eight `*`, then the
 * last four characters of the secret (enough to tell two secrets apart, useless
 * for signing).
 *
 * @example
 * ```ts
 * maskSigningSecret('9f86…0a08'); // 'service_whsec_********0a08'
 * ```
 */
export function maskSigningSecret(secret: string): string {
  const tail = secret.length >= MIN_LENGTH_WITH_TAIL ? secret.slice(-VISIBLE_TAIL) : '';
  return `${SIGNING_SECRET_MASK_PREFIX}${MASK}${tail}`;
}

/**
 * True when `value` looks like a masked secret rather than a usable one, so a
 * caller can refuse it with a clear error instead of signing with it.
 */
export function isMaskedSigningSecret(value: string): boolean {
  return MASKED_PATTERN.test(value);
}
