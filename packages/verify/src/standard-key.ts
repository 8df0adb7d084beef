import { decodeBase64, encodeBase64, fromBase64Url, toBase64Url } from './base64';
import { invalidSecret } from './secret';

/**
 * The text forms of the Ed25519 keys behind `v1a` signatures, as Standard Webhooks writes them:
 * `whsk_` + base64 of the 32-byte seed (private) and `whpk_` + base64 of the 32-byte raw public key,
 * and the public key as a JSON Web Key (RFC 8037) for the router's JWKS. Runtime-neutral: both entries
 * read keys through here.
 */

/** Prefix of a private signing key: `whsk_` + base64 of the 32-byte Ed25519 seed. */
export const PRIVATE_KEY_PREFIX = 'whsk_';
/** Prefix of a public key: `whpk_` + base64 of the 32-byte raw Ed25519 public key. */
export const PUBLIC_KEY_PREFIX = 'whpk_';

const KEY_BYTES = 32;
// 32 bytes are 43 base64 characters and one '=' of padding; the padding is optional.
const KEY_BASE64 = /^[A-Za-z0-9+/]{43}=?$/;
const KEY_BASE64URL = /^[A-Za-z0-9_-]{43}$/;

/** An Ed25519 key pair in Standard Webhooks form, as `generateStandardKeyPair` returns it. */
export interface StandardKeyPair {
  /** `whsk_` + base64 of the 32-byte seed. Keep it secret: it signs `v1a`. */
  privateKey: string;
  /** `whpk_` + base64 of the 32-byte raw public key. Publish it: receivers verify `v1a` with it. */
  publicKey: string;
}

/**
 * An Ed25519 public key as a JSON Web Key: what {@link publicKeyToJwk} returns and what the router's
 * `GET <mount>/public-keys/:agencyId` serves in its `keys`.
 */
export interface StandardWebhookJwk {
  /** Octet key pair (RFC 8037). */
  kty: 'OKP';
  /** The curve. */
  crv: 'Ed25519';
  /** The 32-byte raw public key, base64url without padding. */
  x: string;
  /** The key's id (`whkey_…` for the service's keys). */
  kid: string;
  /** The key verifies signatures. */
  use: 'sig';
  /** The JWS algorithm name of Ed25519. */
  alg: 'EdDSA';
}

/**
 * A key of a JWKS as it arrives from JSON. Verification uses the Ed25519 public keys among them
 * (`kty: 'OKP'`, `crv: 'Ed25519'`) and skips any other kind, so a JWKS may grow new kinds of keys.
 */
export interface JsonWebKeyInput {
  /** Key type; only `'OKP'` is used. */
  kty?: string;
  /** Curve; only `'Ed25519'` is used. */
  crv?: string;
  /** The public key, base64url. */
  x?: string;
  /** The key's id. */
  kid?: string;
  /** When present, must be `'sig'` for the key to be used. */
  use?: string;
  /** When present, must be `'EdDSA'` (or `'Ed25519'`) for the key to be used. */
  alg?: string;
}

/** Whether `text` is a `whpk_` public key of 32 bytes. */
export function isPublicKeyText(text: string): boolean {
  return text.startsWith(PUBLIC_KEY_PREFIX) && KEY_BASE64.test(text.slice(PUBLIC_KEY_PREFIX.length));
}

/** The 32 raw bytes of a `whpk_` public key; `invalid_secret` naming the expected form otherwise. */
export function readPublicKey(publicKey: unknown): Uint8Array<ArrayBuffer> {
  if (typeof publicKey !== 'string' || !isPublicKeyText(publicKey)) {
    throw invalidSecret(
      `${describe(publicKey, PUBLIC_KEY_PREFIX)} is not a public key: expected "whpk_" followed by the ` +
        'base64 of 32 bytes, as GET /public-keys/:agencyId lists them (or publicKeyOf(privateKey) gives).',
    );
  }
  return decodeBase64(publicKey.slice(PUBLIC_KEY_PREFIX.length));
}

/** The 32-byte seed of a `whsk_` private key; `invalid_secret` naming the expected form otherwise. */
export function readPrivateKey(privateKey: unknown): Uint8Array<ArrayBuffer> {
  const text = typeof privateKey === 'string' ? privateKey : '';
  if (!text.startsWith(PRIVATE_KEY_PREFIX) || !KEY_BASE64.test(text.slice(PRIVATE_KEY_PREFIX.length))) {
    throw invalidSecret(
      `${describe(privateKey, PRIVATE_KEY_PREFIX)} is not a private signing key: expected "whsk_" followed by ` +
        'the base64 of a 32-byte Ed25519 seed, as generateStandardKeyPair() returns it.',
    );
  }
  return decodeBase64(text.slice(PRIVATE_KEY_PREFIX.length));
}

/** `whpk_` + base64 of 32 raw public key bytes. */
export function formatPublicKey(bytes: Uint8Array): string {
  return PUBLIC_KEY_PREFIX + encodeBase64(bytes);
}

/** `whsk_` + base64 of a 32-byte seed. */
export function formatPrivateKey(seed: Uint8Array): string {
  return PRIVATE_KEY_PREFIX + encodeBase64(seed);
}

/**
 * The JSON Web Key of a `whpk_` public key, for a JWKS (`{ keys: [...] }`). The router serves the
 * agency's keys this way at `GET <mount>/public-keys/:agencyId`.
 *
 * @param publicKey - `whpk_` + base64 of the 32-byte raw public key
 * @param kid - the key's id, carried as the JWK's `kid`
 * @throws {@link WebhookVerificationError} `invalid_secret` when `publicKey` is not a `whpk_` key
 * @example
 * ```ts
 * const jwks = { keys: [publicKeyToJwk(publicKey, 'whkey_01')] };
 * ```
 */
export function publicKeyToJwk(publicKey: string, kid: string): StandardWebhookJwk {
  readPublicKey(publicKey);
  const base64 = publicKey.slice(PUBLIC_KEY_PREFIX.length);
  return { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(base64), kid, use: 'sig', alg: 'EdDSA' };
}

/**
 * The `whpk_` form of a JWK when it is an Ed25519 public key meant for signatures, `undefined` for a key
 * of another kind (skipped). An Ed25519 key whose `x` is not 32 bytes of base64url is `invalid_secret`:
 * a damaged key must not pass silently as "no key".
 */
export function publicKeyFromJwk(jwk: JsonWebKeyInput): string | undefined {
  if (typeof jwk !== 'object' || jwk === null) {
    throw invalidSecret(`A key of the JWKS is a ${jwk === null ? 'null' : typeof jwk}, not a JSON Web Key.`);
  }
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') return undefined;
  if (jwk.use !== undefined && jwk.use !== 'sig') return undefined;
  if (jwk.alg !== undefined && jwk.alg !== 'EdDSA' && jwk.alg !== 'Ed25519') return undefined;
  if (typeof jwk.x !== 'string' || !KEY_BASE64URL.test(jwk.x)) {
    throw invalidSecret(
      `The Ed25519 JWK${jwk.kid === undefined ? '' : ` "${String(jwk.kid).slice(0, 40)}"`} has no valid "x": ` +
        `expected the base64url of its ${KEY_BYTES}-byte public key.`,
    );
  }
  return PUBLIC_KEY_PREFIX + fromBase64Url(jwk.x);
}

// Keys are secrets or close to them: an error names only the kind of value and its first characters.
function describe(value: unknown, prefix: string): string {
  if (typeof value !== 'string') return `A ${value === null ? 'null' : typeof value}`;
  if (value.length === 0) return 'An empty string';
  return `"${value.slice(0, Math.max(prefix.length, 6))}…"`;
}
