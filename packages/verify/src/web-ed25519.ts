import { decodeBase64, encodeBase64, fromBase64Url } from './base64';
import { WebhookVerificationError } from './errors';
import { KeyCache } from './key-cache';
import {
  formatPrivateKey,
  formatPublicKey,
  readPrivateKey,
  readPublicKey,
  type StandardKeyPair,
} from './standard-key';
import { subtle, type WebCryptoKey } from './web-hmac';

/**
 * Ed25519 (`v1a`) on Web Crypto. Node 20+, Deno, Bun, Cloudflare Workers and current browsers implement
 * it; where a runtime does not, every call fails with `web_crypto_unavailable` and says what to do
 * instead. Imported keys are cached per key string, like the HMAC keys.
 */

const ED25519 = { name: 'Ed25519' } as const;
// RFC 8410: the DER of a PKCS #8 Ed25519 private key is this fixed header followed by the 32-byte seed.
const PKCS8_ED25519_PREFIX = Uint8Array.of(
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
);
const SIGNATURE_BYTES = 64;

const publicKeys = new KeyCache<Promise<WebCryptoKey>>(64);
// A sender signs for every agency with v1a on, so its cache is larger than a receiver's.
const privateKeys = new KeyCache<Promise<WebCryptoKey>>(1024);

/** Whether `signature` is the Ed25519 signature of `message` under a `whpk_` key. */
export async function verifyEd25519Async(
  publicKey: string,
  message: Uint8Array<ArrayBuffer>,
  signature: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  // An Ed25519 signature is 64 bytes; its length is public, so checking it first leaks nothing.
  if (signature.length !== SIGNATURE_BYTES) return false;
  const key = await cachedImport(publicKeys, publicKey, (text) =>
    subtle().importKey('raw', readPublicKey(text), ED25519, false, ['verify']),
  );
  return subtle().verify(ED25519, key, signature, message);
}

/** The Ed25519 signature of `message` under a `whsk_` key, as base64. */
export async function signEd25519Async(
  privateKey: string,
  message: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const key = await cachedImport(privateKeys, privateKey, (text) => importPrivateKey(text, false));
  return encodeBase64(new Uint8Array(await subtle().sign(ED25519, key, message)));
}

/** A fresh Ed25519 key pair from Web Crypto's generator. */
export async function generateKeyPairAsync(): Promise<StandardKeyPair> {
  // Ed25519 generates a pair; the typings' union also covers algorithms that generate one key.
  const pair = (await supported(subtle().generateKey(ED25519, true, ['sign', 'verify']))) as {
    privateKey: WebCryptoKey;
    publicKey: WebCryptoKey;
  };
  const pkcs8 = new Uint8Array(await subtle().exportKey('pkcs8', pair.privateKey));
  const raw = new Uint8Array(await subtle().exportKey('raw', pair.publicKey));
  return {
    privateKey: formatPrivateKey(pkcs8.subarray(PKCS8_ED25519_PREFIX.length)),
    publicKey: formatPublicKey(raw),
  };
}

/** The `whpk_` public key of a `whsk_` private key. */
export async function publicKeyFromPrivateAsync(privateKey: string): Promise<string> {
  const jwk = await subtle().exportKey('jwk', await importPrivateKey(privateKey, true));
  return formatPublicKey(decodeBase64(fromBase64Url(jwk.x ?? '')));
}

function importPrivateKey(privateKey: string, extractable: boolean): Promise<WebCryptoKey> {
  const seed = readPrivateKey(privateKey);
  const der = new Uint8Array(PKCS8_ED25519_PREFIX.length + seed.length);
  der.set(PKCS8_ED25519_PREFIX, 0);
  der.set(seed, PKCS8_ED25519_PREFIX.length);
  return supported(subtle().importKey('pkcs8', der, ED25519, extractable, ['sign']));
}

/**
 * The cached import of a key; a key string that is not in its form throws `invalid_secret` before any
 * import, and a failed import is dropped from the cache so that it does not fail every later call.
 */
function cachedImport(
  cache: KeyCache<Promise<WebCryptoKey>>,
  text: string,
  load: (text: string) => Promise<WebCryptoKey>,
): Promise<WebCryptoKey> {
  return cache.get(text, () => {
    const pending = supported(load(text));
    pending.catch(() => cache.delete(text));
    return pending;
  });
}

/** The keys were checked before import, so a refusal means the runtime lacks Ed25519. */
function supported<T>(operation: Promise<T>): Promise<T> {
  return operation.catch((cause: unknown) => {
    if (cause instanceof WebhookVerificationError) throw cause;
    throw new WebhookVerificationError(
      'web_crypto_unavailable',
      `This runtime's Web Crypto cannot use Ed25519 keys, which v1a signatures need (${describe(cause)}). ` +
        'Verify the v1 signature with the signing secret instead, or use the Node entry (@svc/webhooks-verify). ' +
        'Node 20+, Deno, Bun, Cloudflare Workers and current browsers support Ed25519.',
      { cause },
    );
  });
}

function describe(cause: unknown): string {
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}
