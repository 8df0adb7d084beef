import { decodeBase64, encodeBase64, isBase64 } from './base64';
import { assertUsableSecret, invalidSecret, type WebhookSecret } from './secret';
import {
  isPublicKeyText,
  type JsonWebKeyInput,
  PRIVATE_KEY_PREFIX,
  PUBLIC_KEY_PREFIX,
  publicKeyFromJwk,
} from './standard-key';

/**
 * The secrets of Standard Webhooks `v1` signatures. One secret serves both schemes: the HMAC key is the
 * UTF-8 bytes of the agency's 64-hex secret, and its `whsec_` form is `whsec_` + base64 of those bytes,
 * which is what Standard Webhooks libraries take (they base64-decode what follows the prefix).
 * Runtime-neutral: both entries read keys through here.
 */

/** Prefix of a secret in Standard Webhooks form. */
export const STANDARD_SECRET_PREFIX = 'whsec_';

const utf8 = new TextEncoder();

/**
 * Key material for Standard Webhooks verification. Pass the JWKS the router serves at
 * `GET <mount>/public-keys/:agencyId` as it is (`{ keys }`), and the secret beside it if you want `v1`
 * signatures checked too.
 *
 * @example
 * ```ts
 * const jwks = await (await fetch(`${api}/public-keys/${agencyId}`)).json();
 * verifyStandardWebhook(rawBody, req.headers, { keys: jwks.keys, secrets: process.env.WEBHOOK_SECRET });
 * ```
 */
export interface StandardKeys {
  /**
   * JSON Web Keys; the Ed25519 public keys among them verify `v1a` signatures, keys of other kinds are
   * skipped.
   */
  keys?: readonly JsonWebKeyInput[];
  /** Secrets (hex or `whsec_`) and `whpk_` public keys, as the `secret` argument takes them. */
  secrets?: WebhookSecret;
}

/**
 * An HMAC key as given: `raw` keys are the string's UTF-8 bytes (the agency's hex secret), `whsec`
 * keys the base64 after the prefix. The text is what caches are keyed by.
 */
export interface HmacKeyRef {
  text: string;
  form: 'raw' | 'whsec';
}

/** The keys a Standard Webhooks verification tries: HMAC keys for `v1`, `whpk_` public keys for `v1a`. */
export interface StandardKeyMaterial {
  hmacKeys: HmacKeyRef[];
  publicKeys: string[];
}

/**
 * The `whsec_` form of the agency's secret, for Standard Webhooks libraries: `whsec_` + base64 of the
 * secret's UTF-8 bytes. Never hand a library the hex itself: hex is valid base64 too, so the library
 * would silently decode it into a different, 48-byte key, and nothing would verify.
 *
 * @param hexSecret - the signing secret as the API returned it (64 hex characters)
 * @throws {@link WebhookVerificationError} `invalid_secret` for an empty or masked secret, or one already
 * in an encoded form (`whsec_`, `whpk_`, `whsk_`)
 * @example
 * ```ts
 * const wh = new Webhook(toStandardSecret(process.env.WEBHOOK_SECRET!)); // the standardwebhooks package
 * ```
 */
export function toStandardSecret(hexSecret: string): string {
  assertUsableSecret(hexSecret);
  if (hexSecret.startsWith(STANDARD_SECRET_PREFIX)) {
    throw invalidSecret('The secret is already in its whsec_ form; pass it to the library as it is.');
  }
  if (hexSecret.startsWith(PRIVATE_KEY_PREFIX) || isPublicKeyText(hexSecret)) {
    throw invalidSecret('This is an Ed25519 key, not the signing secret; it has no whsec_ form.');
  }
  return STANDARD_SECRET_PREFIX + encodeBase64(utf8.encode(hexSecret));
}

/** The HMAC key bytes of a key as given. */
export function hmacKeyBytes(key: HmacKeyRef): Uint8Array<ArrayBuffer> {
  return key.form === 'raw'
    ? utf8.encode(key.text)
    : decodeBase64(key.text.slice(STANDARD_SECRET_PREFIX.length));
}

/**
 * Reads the `secret` argument of the Standard Webhooks verifiers into the keys to try. Fails closed:
 * nothing usable is `invalid_secret`, never a pass.
 */
export function readStandardKeys(
  secret: WebhookSecret | StandardKeys | null | undefined,
): StandardKeyMaterial {
  const material: StandardKeyMaterial = { hmacKeys: [], publicKeys: [] };
  if (isStandardKeys(secret)) {
    readJwks(secret.keys, material);
    if (secret.secrets !== undefined) readKeyStrings(secret.secrets, material);
    if (material.hmacKeys.length + material.publicKeys.length === 0) throw noKeys(secret);
    return material;
  }
  if (secret === undefined || secret === null) {
    throw invalidSecret(
      'No key was given. Pass the signing secret (hex or its whsec_ form), the agency’s public keys ' +
        '(whpk_…), or the JWKS from GET /public-keys/:agencyId.',
    );
  }
  readKeyStrings(secret, material);
  return material;
}

/** The secret `signStandardWebhook` signs with, checked like a verification key. */
export function readSigningSecret(secret: unknown): HmacKeyRef {
  assertUsableSecret(secret);
  const key = classify(secret);
  if (typeof key === 'string') {
    throw invalidSecret(
      'A whpk_ public key cannot sign. Sign v1 with the signing secret (hex or whsec_), v1a with the ' +
        'private key (signStandardWebhookAsymmetric).',
    );
  }
  return key;
}

/** Whether a `secret` argument is a {@link StandardKeys} object rather than secrets. */
export function isStandardKeys(value: unknown): value is StandardKeys {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readJwks(keys: StandardKeys['keys'], material: StandardKeyMaterial): void {
  if (keys === undefined) return;
  if (!Array.isArray(keys)) {
    throw invalidSecret(`The keys of the JWKS are a ${typeof keys}; expected an array of JSON Web Keys.`);
  }
  for (const jwk of keys) {
    const publicKey = publicKeyFromJwk(jwk);
    if (publicKey !== undefined) material.publicKeys.push(publicKey);
  }
}

function readKeyStrings(secret: WebhookSecret, material: StandardKeyMaterial): void {
  const list: readonly unknown[] = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(list)) {
    throw invalidSecret(
      `The signing secret is a ${typeof secret}; pass it as a string (or an array of strings).`,
    );
  }
  if (list.length === 0) throw invalidSecret('The list of signing secrets is empty; pass at least one.');
  for (const one of list) {
    assertUsableSecret(one);
    const key = classify(one);
    if (typeof key === 'string') material.publicKeys.push(key);
    else material.hmacKeys.push(key);
  }
}

/** An HMAC key, or a `whpk_` public key (as its text). */
function classify(text: string): HmacKeyRef | string {
  if (text.startsWith(STANDARD_SECRET_PREFIX)) {
    const encoded = text.slice(STANDARD_SECRET_PREFIX.length);
    if (encoded.length === 0) {
      throw invalidSecret(
        'The secret is "whsec_" with nothing after it. Pass the whole whsec_ secret, or the hex secret.',
      );
    }
    if (!isBase64(encoded)) {
      throw invalidSecret(
        'What follows "whsec_" in the secret is not base64; copy the whole whsec_ secret again.',
      );
    }
    return { text, form: 'whsec' };
  }
  if (text.startsWith(PUBLIC_KEY_PREFIX)) {
    if (!isPublicKeyText(text)) {
      throw invalidSecret('The whpk_ public key is not the base64 of 32 bytes; copy the whole key again.');
    }
    return text;
  }
  if (text.startsWith(PRIVATE_KEY_PREFIX)) {
    throw invalidSecret(
      'A whsk_ private key was given where a secret belongs. Receivers verify v1a with the public key ' +
        '(whpk_…, or the JWKS from GET /public-keys/:agencyId) and keep the private key off their side; ' +
        'senders sign v1a with it through signStandardWebhookAsymmetric.',
    );
  }
  return { text, form: 'raw' };
}

function noKeys(secret: StandardKeys): Error {
  if (Array.isArray(secret.keys) && secret.keys.length === 0 && secret.secrets === undefined) {
    return invalidSecret(
      'The JWKS holds no keys: Ed25519 (v1a) signatures are off for this agency. Verify the v1 signature ' +
        'with the signing secret instead, or turn asymmetricSignatures on.',
    );
  }
  return invalidSecret(
    'No usable key was given: the JWKS holds no Ed25519 public key and no secret was passed. Pass ' +
      '{ keys } from GET /public-keys/:agencyId, or secrets.',
  );
}
