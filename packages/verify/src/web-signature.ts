import { signatureMismatch, WebhookVerificationError } from './errors';
import { KeyCache } from './key-cache';
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
    throw new WebhookVerificationError(
      'web_crypto_unavailable',
      'Web Crypto (globalThis.crypto.subtle) is not available in this runtime; import the Node entry ' +
        '(@svc/webhooks-verify) instead of /web or /fetch.',
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
function signedBytes(timestampText: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return encoder.encode(`${timestampText}.${body}`);
  const prefix = encoder.encode(`${timestampText}.`);
  const bytes = new Uint8Array(prefix.length + body.length);
  bytes.set(prefix, 0);
  bytes.set(body, prefix.length);
  return bytes;
}

/** HMAC-SHA256 of `<t>.<body>` keyed with the secret's UTF-8 bytes, via Web Crypto. */
async function computeSignatureAsync(
  secret: string,
  timestampText: string,
  body: string | Uint8Array,
): Promise<Uint8Array> {
  const key = await keys.get(secret, importKey);
  return new Uint8Array(await subtle().sign('HMAC', key, signedBytes(timestampText, body)));
}

/** The same HMAC as the lowercase hex a signature header carries. */
export async function computeSignatureHexAsync(
  secret: string,
  timestampText: string,
  body: string | Uint8Array,
): Promise<string> {
  return encodeHex(await computeSignatureAsync(secret, timestampText, body));
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

/**
 * Byte equality whose running time depends only on the length: it never stops at the first
 * difference, so timing cannot reveal how many leading bytes of a forged signature were right.
 * Lengths are compared first; a signature's length is public.
 */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

const HEX_DIGITS = '0123456789abcdef';

/** Lower-case hex of bytes, without `Buffer`. */
function encodeHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    out += HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!;
  }
  return out;
}

/** Bytes of a hex string the header parser already checked (even length, hex digits of either case). */
function decodeHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = (nibble(hex.charCodeAt(2 * i)) << 4) | nibble(hex.charCodeAt(2 * i + 1));
  }
  return bytes;
}

function nibble(code: number): number {
  if (code <= 0x39) return code - 0x30; // 0-9
  return (code | 0x20) - 0x57; // a-f and A-F
}
