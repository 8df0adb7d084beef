import { constantTimeEqual } from './constant-time';
import { signatureMismatch } from './errors';
import type { PreparedVerification } from './preflight';
import { keyMixUpError, serviceMixUps } from './standard-mix-up';
import { hmacAsync, hmacWithKeyAsync, prefixedBytes } from './web-hmac';

/** HMAC-SHA256 of `<t>.<body>` keyed with the secret's UTF-8 bytes, via Web Crypto. */
function computeSignatureAsync(
  secret: string,
  timestampText: string,
  body: string | Uint8Array,
): Promise<Uint8Array> {
  return hmacAsync({ text: secret, form: 'raw' }, prefixedBytes(`${timestampText}.`, body));
}

/** The same HMAC as the lowercase hex a signature header carries. */
export async function computeSignatureHexAsync(
  secret: string,
  timestampText: string,
  body: string | Uint8Array,
): Promise<string> {
  return encodeHex(await computeSignatureAsync(secret, timestampText, body));
}

/**
 * Passes when any `v1` equals the HMAC under any secret, compared in constant time. Before reporting a
 * mismatch, a `whsec_` secret is tried as the bytes it encodes, to name that mix-up.
 */
export async function assertSignatureMatchesAsync(prepared: PreparedVerification): Promise<void> {
  const given = prepared.signatures.map(decodeHex);
  for (const secret of prepared.secrets) {
    const expected = await computeSignatureAsync(secret, prepared.timestampText, prepared.body);
    if (given.some((candidate) => constantTimeEqual(candidate, expected))) return;
  }
  const message = prefixedBytes(`${prepared.timestampText}.`, prepared.body);
  for (const mixUp of serviceMixUps(prepared.secrets)) {
    const expected = await hmacWithKeyAsync(mixUp.key, message);
    if (given.some((candidate) => constantTimeEqual(candidate, expected))) throw keyMixUpError(mixUp);
  }
  throw signatureMismatch(prepared.secrets.length);
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
