import { Buffer } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';
import { signatureMismatch } from './errors';
import { hmacSha256, hmacSha256Hex, hmacWithKey } from './node-hmac';
import type { PreparedVerification } from './preflight';
import { keyMixUpError, serviceMixUps } from './standard-mix-up';

/** HMAC-SHA256 of `<t>.<body>` keyed with the secret's UTF-8 bytes. */
export const computeSignature = hmacSha256;
/** The same, as the lowercase hex a signature header carries. */
export const computeSignatureHex = hmacSha256Hex;

/**
 * Passes when any `v1` equals the HMAC under any secret. Each comparison checks lengths first and then
 * uses `timingSafeEqual`, so the time taken reveals nothing about how much of a guess was right.
 * Before reporting a mismatch, a `whsec_` secret is tried as the bytes it encodes, to name that mix-up.
 */
export function assertSignatureMatches(prepared: PreparedVerification): void {
  const given = prepared.signatures.map((hex) => Buffer.from(hex, 'hex'));
  for (const secret of prepared.secrets) {
    const expected = computeSignature(secret, prepared.timestampText, prepared.body);
    if (matchesAny(given, expected)) return;
  }
  const prefix = `${prepared.timestampText}.`;
  for (const mixUp of serviceMixUps(prepared.secrets)) {
    if (matchesAny(given, hmacWithKey(mixUp.key, prefix, prepared.body))) throw keyMixUpError(mixUp);
  }
  throw signatureMismatch(prepared.secrets.length);
}

function matchesAny(given: readonly Buffer[], expected: Buffer): boolean {
  for (const candidate of given) {
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return true;
  }
  return false;
}
