import { Buffer } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';
import { signatureMismatch } from './errors';
import { hmacSha256, hmacSha256Hex } from './node-hmac';
import type { PreparedVerification } from './preflight';

/** HMAC-SHA256 of `<t>.<body>` keyed with the secret's UTF-8 bytes. */
export const computeSignature = hmacSha256;
/** The same, as the lowercase hex a signature header carries. */
export const computeSignatureHex = hmacSha256Hex;

/**
 * Passes when any `v1` equals the HMAC under any secret. Each comparison checks lengths first and then
 * uses `timingSafeEqual`, so the time taken reveals nothing about how much of a guess was right.
 */
export function assertSignatureMatches(prepared: PreparedVerification): void {
  const given = prepared.signatures.map((hex) => Buffer.from(hex, 'hex'));
  for (const secret of prepared.secrets) {
    const expected = computeSignature(secret, prepared.timestampText, prepared.body);
    for (const candidate of given) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return;
    }
  }
  throw signatureMismatch(prepared.secrets.length);
}
