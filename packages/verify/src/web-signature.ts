import { constantTimeEqual } from './constant-time-equal';
import { decodeHex } from './hex';
import { KeyCache } from './key-cache';
import { signatureMismatch } from './mismatch';
import type { PreparedVerification } from './preflight';

// Named through globalThis so the types come from whichever runtime's typings are present (DOM, Node,
// Workers) without this file depending on one of them.
type Subtle = typeof globalThis.crypto.subtle;
type HmacKey = Awaited<ReturnType<Subtle['importKey']>>;

const encoder = new TextEncoder();

// importKey is asynchronous and costs about as much as a whole HMAC of a small body, so the promise is
// cached: concurrent first calls share one import.
const keys = new KeyCache<Promise<HmacKey>>(64);

function subtle(): Subtle {
  const api = globalThis.crypto?.subtle;
  if (api === undefined) {
    throw new Error(
      'Web Crypto (globalThis.crypto.subtle) is not available in this runtime; use the Node entry of @svc/webhooks-verify.',
    );
  }
  return api;
}

function importKey(secret: string): Promise<HmacKey> {
  const imported = subtle().importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  // A failed import must not stay cached and fail every later call.
  imported.catch(() => keys.delete(secret));
  return imported;
}

/** The bytes that are signed: `<t>.` followed by the body. */
function signedBytes(timestampText: string, body: string | Uint8Array): Uint8Array {
  if (typeof body === 'string') return encoder.encode(`${timestampText}.${body}`);
  const prefix = encoder.encode(`${timestampText}.`);
  const bytes = new Uint8Array(prefix.length + body.length);
  bytes.set(prefix, 0);
  bytes.set(body, prefix.length);
  return bytes;
}

/** HMAC-SHA256 of `<t>.<body>` keyed with the secret's UTF-8 bytes, via Web Crypto. */
export async function computeSignatureAsync(
  secret: string,
  timestampText: string,
  body: string | Uint8Array,
): Promise<Uint8Array> {
  const key = await keys.get(secret, importKey);
  return new Uint8Array(await subtle().sign('HMAC', key, signedBytes(timestampText, body)));
}

/** Passes when any `v1` equals the HMAC under any secret, compared in constant time. */
export async function assertSignatureMatchesAsync(prepared: PreparedVerification): Promise<void> {
  const given = prepared.signatures.map(decodeHex);
  for (const secret of prepared.secrets) {
    const expected = await computeSignatureAsync(secret, prepared.timestampText, prepared.body);
    if (given.some((candidate) => constantTimeEqual(candidate, expected))) return;
  }
  throw signatureMismatch(prepared.secrets.length);
}
