import { WebhookVerificationError } from './errors';
import { KeyCache } from './key-cache';
import { type HmacKeyRef, hmacKeyBytes } from './standard-secret';

// Named through globalThis so the types come from whichever runtime's typings are present (DOM, Node,
// Workers) without this file depending on one of them.
/** The Web Crypto API object. */
export type Subtle = typeof globalThis.crypto.subtle;
/** A key imported into Web Crypto. */
export type WebCryptoKey = Awaited<ReturnType<Subtle['importKey']>>;

/** UTF-8 encoder shared by the Web Crypto files. */
export const utf8 = new TextEncoder();

// importKey is asynchronous and costs about as much as a whole HMAC of a small body, so the promise is
// cached: concurrent first calls share one import. Keyed by the secret string, whose UTF-8 bytes are the
// key; `whsec_` strings, whose key is the base64 they carry, have their own cache so that one string
// means one key per cache.
const keys = new KeyCache<Promise<WebCryptoKey>>(64);
const decodedKeys = new KeyCache<Promise<WebCryptoKey>>(64);

/** `globalThis.crypto.subtle`, or `web_crypto_unavailable` naming the Node entry. */
export function subtle(): Subtle {
  const api = globalThis.crypto?.subtle;
  if (api === undefined) {
    throw new WebhookVerificationError(
      'web_crypto_unavailable',
      'Web Crypto (globalThis.crypto.subtle) is not available in this runtime; import the Node entry ' +
        '(@svc/webhooks-verify) instead of /web or /fetch.',
    );
  }
  return api;
}

/** HMAC-SHA256 of `message` under a key as given, as bytes. */
export async function hmacAsync(key: HmacKeyRef, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await subtle().sign('HMAC', await hmacKey(key), message));
}

/** The imported key of a key as given, cached per key string. */
export function hmacKey(key: HmacKeyRef): Promise<WebCryptoKey> {
  return key.form === 'raw' ? keys.get(key.text, importRaw) : decodedKeys.get(key.text, importDecoded);
}

function importRaw(text: string): Promise<WebCryptoKey> {
  return importCached(keys, { text, form: 'raw' });
}

function importDecoded(text: string): Promise<WebCryptoKey> {
  return importCached(decodedKeys, { text, form: 'whsec' });
}

function importCached(cache: KeyCache<Promise<WebCryptoKey>>, key: HmacKeyRef): Promise<WebCryptoKey> {
  const imported = importHmacKey(hmacKeyBytes(key));
  // A failed import must not stay cached and fail every later call.
  imported.catch(() => cache.delete(key.text));
  return imported;
}

/** HMAC-SHA256 under raw key bytes, without caching: for the key mix-up checks after a failure. */
export async function hmacWithKeyAsync(
  key: Uint8Array,
  message: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array> {
  const imported = await importHmacKey(Uint8Array.from(key));
  return new Uint8Array(await subtle().sign('HMAC', imported, message));
}

function importHmacKey(bytes: Uint8Array<ArrayBuffer>): Promise<WebCryptoKey> {
  return subtle().importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/** The bytes of `prefix` followed by the body. */
export function prefixedBytes(prefix: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return utf8.encode(prefix + body);
  const head = utf8.encode(prefix);
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head, 0);
  bytes.set(body, head.length);
  return bytes;
}
