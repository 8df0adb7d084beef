import { decodeBase64, isBase64 } from './base64';
import { standardSignatureMismatch, type WebhookVerificationError } from './errors';
import { invalidSecret } from './secret';
import type { PreparedStandardVerification } from './standard-preflight';
import { type HmacKeyRef, STANDARD_SECRET_PREFIX } from './standard-secret';

/**
 * The hex secret and its `whsec_` form are easy to mix up, and the mix-up fails silently elsewhere: 64 hex
 * characters are valid base64 too, so a Standard Webhooks library handed the hex decodes it into a
 * different 48-byte key instead of refusing it. When no key matches, the verifiers re-read each key
 * the wrong ways listed here; if one of those readings matches, the error names the mix-up and its fix
 * instead of a bare mismatch. The delivery is still refused: a signature made with a wrongly read key
 * proves a broken setup, and accepting it would make the wrong key work by accident.
 *
 * Runs only after every real key failed, so it costs nothing on the path of valid deliveries.
 */
export interface KeyMixUp {
  /** The wrongly read key bytes. */
  key: Uint8Array;
  /** What to tell the receiver when a signature matches under {@link key}. */
  message: string;
}

const utf8 = new TextEncoder();
const HEX = /^[0-9a-fA-F]+$/;

/** The wrong readings of the HMAC keys given to a Standard Webhooks verification. */
export function standardMixUps(keys: readonly HmacKeyRef[]): KeyMixUp[] {
  const mixUps: KeyMixUp[] = [];
  for (const key of keys) {
    if (key.form === 'raw') {
      if (isBase64(key.text)) {
        const message = HEX.test(key.text) ? HEX_READ_AS_BASE64 : BASE64_WITHOUT_PREFIX;
        mixUps.push({ key: decodeBase64(key.text), message });
      }
      continue;
    }
    const encoded = key.text.slice(STANDARD_SECRET_PREFIX.length);
    mixUps.push({
      key: utf8.encode(encoded),
      message: HEX.test(encoded) ? HEX_WRAPPED_AS_WHSEC : BASE64_TEXT_AS_KEY,
    });
    mixUps.push({ key: utf8.encode(key.text), message: WHSEC_TEXT_AS_KEY });
  }
  return mixUps;
}

/**
 * The wrong readings of secrets given to verify `X-Service-Signature`: a `whsec_` form, which decodes to
 * the bytes of the hex secret that header is keyed with.
 */
export function serviceMixUps(secrets: readonly string[]): KeyMixUp[] {
  const mixUps: KeyMixUp[] = [];
  for (const secret of secrets) {
    const encoded = secret.startsWith(STANDARD_SECRET_PREFIX)
      ? secret.slice(STANDARD_SECRET_PREFIX.length)
      : '';
    if (isBase64(encoded)) mixUps.push({ key: decodeBase64(encoded), message: WHSEC_FOR_SERVICE_HEADER });
  }
  return mixUps;
}

/** The `invalid_secret` error for a signature that matched only under a mixed-up key. */
export function keyMixUpError(mixUp: KeyMixUp): WebhookVerificationError {
  return invalidSecret(`${mixUp.message} The delivery was not accepted.`);
}

const HEX_READ_AS_BASE64 =
  'Key mix-up: the signature was made with the hex secret read as base64 (a different, 48-byte key), not ' +
  'with the secret itself. That is what a Standard Webhooks library does when it is handed the 64-hex ' +
  'secret instead of its whsec_ form. Give the sender’s library the whsec_ form: the standardSigningSecret ' +
  'the API returned, or toStandardSecret(hexSecret).';

const BASE64_WITHOUT_PREFIX =
  'Key mix-up: the secret given is the base64 of a whsec_ secret without its "whsec_" prefix, so it was read ' +
  'as plain text; the delivery was signed with the bytes it encodes. Pass it with the prefix: "whsec_…".';

const HEX_WRAPPED_AS_WHSEC =
  'Key mix-up: the secret given here is the hex secret with "whsec_" put in front. The whsec_ form is ' +
  'whsec_ + base64 of the hex secret’s bytes, so this reads the hex as base64 and gives a different, 48-byte ' +
  'key; the delivery was signed with the hex secret’s own bytes. Pass the hex secret as it is, or its real ' +
  'whsec_ form: the standardSigningSecret the API returned, or toStandardSecret(hexSecret).';

const BASE64_TEXT_AS_KEY =
  'Key mix-up: the signature was made with the characters after "whsec_" used as the key, instead of the ' +
  'bytes their base64 encodes. The sender must decode the whsec_ secret (Standard Webhooks libraries do) ' +
  'or sign with the hex secret.';

const WHSEC_TEXT_AS_KEY =
  'Key mix-up: the signature was made with the whole whsec_ string used as a plain-text key, instead of the ' +
  'bytes its base64 encodes. The sender must give the whsec_ form to a Standard Webhooks library (which ' +
  'decodes it) or sign with the hex secret.';

const WHSEC_FOR_SERVICE_HEADER =
  'Key mix-up: the secret given is the whsec_ form (for Standard Webhooks libraries), but this delivery ' +
  'carries X-Service-Signature, which is keyed with the hex secret itself. Pass the 64-hex secret the API ' +
  'returned; keep the whsec_ form for Standard Webhooks libraries and the webhook-signature header.';

/**
 * The error of a Standard Webhooks delivery whose signatures matched no key: the key mix-up found, if
 * any, else the mismatch with what was tried. Both runtimes' checks end here.
 */
export function standardVerificationFailure(
  { v1, v1a, keys }: PreparedStandardVerification,
  mixUp: KeyMixUp | undefined,
): WebhookVerificationError {
  if (mixUp !== undefined) return keyMixUpError(mixUp);
  return standardSignatureMismatch({
    v1: v1.length,
    v1a: v1a.length,
    hmacKeys: keys.hmacKeys.length,
    publicKeys: keys.publicKeys.length,
  });
}
