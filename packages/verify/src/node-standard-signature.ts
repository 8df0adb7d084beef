import { Buffer } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';
import { signEd25519, verifyEd25519 } from './ed25519';
import { hmacWithKey, standardHmac } from './node-hmac';
import { formatStandardSignature } from './standard-header';
import { type KeyMixUp, standardMixUps, standardVerificationFailure } from './standard-mix-up';
import type { PreparedStandardVerification } from './standard-preflight';
import type { HmacKeyRef } from './standard-secret';

/**
 * Passes when any `v1` matches the HMAC under any secret, or any `v1a` verifies under any public key.
 * HMACs are compared with a length check, then `timingSafeEqual`. When nothing matches, the key mix-ups
 * are tried before the mismatch is reported (see standard-mix-up.ts).
 */
export function assertStandardSignatureMatches(prepared: PreparedStandardVerification): void {
  if (matchesV1(prepared) || matchesV1a(prepared)) return;
  throw standardVerificationFailure(prepared, findMixUp(prepared));
}

/** `v1,<base64 HMAC-SHA256 of <prefix><body>>` under a secret. */
export function signV1(key: HmacKeyRef, prefix: string, body: string | Uint8Array): string {
  return formatStandardSignature('v1', standardHmac(key, prefix, body, 'base64'));
}

/** `v1a,<base64 Ed25519 signature of <prefix><body>>` under a `whsk_` key. */
export function signV1a(privateKey: string, prefix: string, body: string | Uint8Array): string {
  return formatStandardSignature('v1a', signEd25519(privateKey, signedContent(prefix, body)));
}

function matchesV1({ v1, keys, prefix, body }: PreparedStandardVerification): boolean {
  if (v1.length === 0 || keys.hmacKeys.length === 0) return false;
  const given = v1.map(decode);
  for (const key of keys.hmacKeys) {
    if (matchesAny(given, Buffer.from(standardHmac(key, prefix, body, 'binary'), 'latin1'))) return true;
  }
  return false;
}

function matchesV1a({ v1a, keys, prefix, body }: PreparedStandardVerification): boolean {
  if (v1a.length === 0 || keys.publicKeys.length === 0) return false;
  const message = signedContent(prefix, body);
  const given = v1a.map(decode);
  return keys.publicKeys.some((publicKey) =>
    given.some((signature) => verifyEd25519(publicKey, message, signature)),
  );
}

function findMixUp({ v1, keys, prefix, body }: PreparedStandardVerification): KeyMixUp | undefined {
  if (v1.length === 0) return undefined;
  const given = v1.map(decode);
  return standardMixUps(keys.hmacKeys).find((mixUp) =>
    matchesAny(given, hmacWithKey(mixUp.key, prefix, body)),
  );
}

function matchesAny(given: readonly Buffer[], expected: Buffer): boolean {
  return given.some(
    (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
  );
}

// The header parser checked the text is base64, so Buffer's lenient decoder sees nothing it would skip.
function decode(base64: string): Buffer {
  return Buffer.from(base64, 'base64');
}

/** The signed content as bytes: `<id>.<seconds>.` followed by the body. */
function signedContent(prefix: string, body: string | Uint8Array): Buffer {
  return typeof body === 'string'
    ? Buffer.from(prefix + body, 'utf8')
    : Buffer.concat([Buffer.from(prefix, 'utf8'), body]);
}
