import { Buffer } from 'node:buffer';
import * as crypto from 'node:crypto';
import { KeyCache } from './key-cache';
import { type HmacKeyRef, STANDARD_SECRET_PREFIX } from './standard-secret';

// Measured: docs/benchmarks.md#verify-hand-built-hmac-versus-createhmac (verifyWebhook +24–54 % on Node 20).
/**
 * HMAC-SHA256 (RFC 2104) of `<t>.<body>` built on node:crypto's one-shot `hash()`; the Standard Webhooks
 * `v1` HMAC of `<id>.<seconds>.<body>` runs through the same path and pad caches.
 *
 * Why not `createHmac`: for the body sizes webhooks have, most of its cost is creating the Hmac
 * object and crossing into native code three times, not hashing. With the key's inner and outer pads
 * prepared once per secret, the same HMAC is two one-shot SHA-256 calls: about half the time at 100 B
 * to 1 KiB on Node 20 and 24, which is what lets the full verification (header parsing, checks) keep up
 * with a bare `createHmac` + `timingSafeEqual`. Tests compare the result with `createHmac` on arbitrary
 * input. Runtimes without `crypto.hash` (Node before 20.12, some Node-compatible runtimes) use `createHmac`.
 *
 * Digests leave native code as 'binary' (latin1) or hex strings, never as `'buffer'`: on Node 20 a Buffer result
 * costs more than the hash itself at these sizes (one HMAC: 3.9 µs with Buffer results, 1.4 µs with
 * strings), and latin1 maps each byte to one character, so writing it back with latin1 is exact.
 */

const BLOCK = 64; // SHA-256 block size in bytes
const DIGEST = 32;
const PERIOD = 0x2e; // '.'

/**
 * The key's pads: `key ⊕ ipad`, and a buffer holding `key ⊕ opad` followed by room for the inner digest;
 * with the key itself for the `createHmac` path.
 */
interface HmacPads {
  key: Buffer;
  inner: Buffer;
  outer: Buffer;
}

// Looked up once: `hash` is missing before Node 20.12 and in some Node-compatible runtimes.
const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;
// Keyed by the secret string, whose UTF-8 bytes are the key: the spec's secrets, and the same hex secrets
// given to the Standard Webhooks verifier.
const pads = new KeyCache<HmacPads>(64);
// Keyed by `whsec_` strings, whose key is the base64 after the prefix. Apart from `pads` so that a string
// means one key per cache whichever way it is read.
const decodedPads = new KeyCache<HmacPads>(64);

// The message is assembled behind the inner pad in one reused buffer, so small deliveries allocate
// nothing. Bodies that may not fit go through `createHmac`, which streams them: there the per-call
// overhead the one-shot path saves is small next to hashing, and copying the body would cost more.
const SCRATCH_BYTES = 16 * 1024;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

function derivePads(secret: string): HmacPads {
  return padsOf(Buffer.from(secret, 'utf8'));
}

function deriveDecodedPads(whsec: string): HmacPads {
  return padsOf(Buffer.from(whsec.slice(STANDARD_SECRET_PREFIX.length), 'base64'));
}

function padsOf(key: Buffer): HmacPads {
  // RFC 2104: a key longer than the block is hashed first.
  const block = key.length > BLOCK ? crypto.createHash('sha256').update(key).digest() : key;
  const inner = Buffer.alloc(BLOCK);
  const outer = Buffer.alloc(BLOCK + DIGEST);
  for (let i = 0; i < BLOCK; i++) {
    const byte = block[i] ?? 0;
    inner[i] = byte ^ 0x36;
    outer[i] = byte ^ 0x5c;
  }
  return { key, inner, outer };
}

/**
 * Whether `inner pad ‖ head ‖ body` surely fits the scratch buffer, whatever the body's UTF-8 length;
 * `headBytes` bounds the bytes written before the body.
 */
function fitsScratch(headBytes: number, body: string | Uint8Array): boolean {
  // A UTF-16 code unit never needs more than 3 bytes of UTF-8; computing the exact size would cost a scan.
  const bound = BLOCK + headBytes + (typeof body === 'string' ? body.length * 3 : body.length);
  return bound <= SCRATCH_BYTES;
}

/** `inner pad ‖ t ‖ '.' ‖ body` in the scratch buffer (see {@link fitsScratch}). */
function innerMessage(inner: Buffer, timestampText: string, body: string | Uint8Array): Buffer {
  const target = scratch;
  inner.copy(target, 0);
  let length = BLOCK + target.write(timestampText, BLOCK, 'latin1'); // t is ASCII digits
  target[length++] = PERIOD;
  return withBody(target, length, body);
}

/** `inner pad ‖ prefix ‖ body` in the scratch buffer; a Standard Webhooks prefix is `<id>.<seconds>.`, any UTF-8. */
function prefixedMessage(inner: Buffer, prefix: string, body: string | Uint8Array): Buffer {
  const target = scratch;
  inner.copy(target, 0);
  return withBody(target, BLOCK + target.write(prefix, BLOCK, 'utf8'), body);
}

function withBody(target: Buffer, start: number, body: string | Uint8Array): Buffer {
  let length = start;
  if (typeof body === 'string') {
    length += target.write(body, length, 'utf8');
  } else {
    target.set(body, length);
    length += body.length;
  }
  return target.subarray(0, length);
}

/**
 * Encodings a digest can leave native code in ('binary' is latin1: one character per byte); all beat a
 * Buffer. 'base64' is what a Standard Webhooks signature carries.
 */
type DigestEncoding = 'hex' | 'binary' | 'base64';

function hmac(
  secret: string,
  timestampText: string,
  body: string | Uint8Array,
  encoding: DigestEncoding,
): string {
  if (oneShot === undefined || !fitsScratch(timestampText.length + 1, body)) {
    return hmacWithCreateHmac(secret, timestampText, body, encoding);
  }
  const { inner, outer } = pads.get(secret, derivePads);
  outer.write(oneShot('sha256', innerMessage(inner, timestampText, body), 'binary'), BLOCK, 'latin1');
  return oneShot('sha256', outer, encoding);
}

function hmacWithCreateHmac(
  secret: string,
  timestampText: string,
  body: string | Uint8Array,
  encoding: DigestEncoding,
): string {
  return crypto.createHmac('sha256', secret).update(`${timestampText}.`).update(body).digest(encoding);
}

/** Two one-shot hashes over the message already assembled behind the inner pad. */
function finish(keyPads: HmacPads, message: Buffer, encoding: DigestEncoding): string {
  const oneShotHash = oneShot as NonNullable<typeof oneShot>;
  keyPads.outer.write(oneShotHash('sha256', message, 'binary'), BLOCK, 'latin1');
  return oneShotHash('sha256', keyPads.outer, encoding);
}

/**
 * HMAC-SHA256 of `<prefix><body>` under a Standard Webhooks key (the hex secret's UTF-8 bytes, or the
 * bytes a `whsec_` secret encodes), with the same hand-built path and pad caches as the spec's header.
 */
export function standardHmac(
  key: HmacKeyRef,
  prefix: string,
  body: string | Uint8Array,
  encoding: 'binary' | 'base64',
): string {
  const keyPads =
    key.form === 'raw' ? pads.get(key.text, derivePads) : decodedPads.get(key.text, deriveDecodedPads);
  if (oneShot === undefined || !fitsScratch(prefix.length * 3, body)) {
    return crypto.createHmac('sha256', keyPads.key).update(prefix).update(body).digest(encoding);
  }
  return finish(keyPads, prefixedMessage(keyPads.inner, prefix, body), encoding);
}

/**
 * HMAC-SHA256 of `<prefix><body>` under raw key bytes, without caching: for the key mix-up checks, which
 * run only once a delivery failed.
 */
export function hmacWithKey(key: Uint8Array, prefix: string, body: string | Uint8Array): Buffer {
  return crypto.createHmac('sha256', key).update(prefix).update(body).digest();
}

/** HMAC-SHA256 of `<t>.<body>` keyed with the secret's UTF-8 bytes, as bytes (for constant-time comparison). */
export function hmacSha256(secret: string, timestampText: string, body: string | Uint8Array): Buffer {
  return Buffer.from(hmac(secret, timestampText, body, 'binary'), 'latin1');
}

/** The same HMAC as lowercase hex, the form a signature header carries. */
export function hmacSha256Hex(secret: string, timestampText: string, body: string | Uint8Array): string {
  return hmac(secret, timestampText, body, 'hex');
}

/** The same HMAC through `createHmac`, for runtimes without `crypto.hash`. */
export function hmacSha256WithCreateHmac(
  secret: string,
  timestampText: string,
  body: string | Uint8Array,
): Buffer {
  return Buffer.from(hmacWithCreateHmac(secret, timestampText, body, 'binary'), 'latin1');
}
