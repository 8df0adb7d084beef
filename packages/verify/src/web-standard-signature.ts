import { decodeBase64, encodeBase64 } from './base64';
import { constantTimeEqual } from './constant-time';
import { formatStandardSignature } from './standard-header';
import { type KeyMixUp, standardMixUps, standardVerificationFailure } from './standard-mix-up';
import type { PreparedStandardVerification } from './standard-preflight';
import type { HmacKeyRef } from './standard-secret';
import { signEd25519Async, verifyEd25519Async } from './web-ed25519';
import { hmacAsync, hmacWithKeyAsync, prefixedBytes } from './web-hmac';

/**
 * Web Crypto twin of node-standard-signature.ts: passes when any `v1` matches the HMAC under any secret
 * (compared in constant time), or any `v1a` verifies under any public key; otherwise tries the key
 * mix-ups before reporting the mismatch.
 */
export async function assertStandardSignatureMatchesAsync(
  prepared: PreparedStandardVerification,
): Promise<void> {
  // The signed content is encoded once, for every key and both versions.
  const message = prefixedBytes(prepared.prefix, prepared.body);
  const { v1, keys } = prepared;
  if (v1.length > 0) {
    const given = v1.map(decodeBase64);
    for (const key of keys.hmacKeys) {
      const expected = await hmacAsync(key, message);
      if (given.some((candidate) => constantTimeEqual(candidate, expected))) return;
    }
  }
  if (await matchesV1a(prepared, message)) return;
  throw standardVerificationFailure(prepared, await findMixUp(prepared, message));
}

/** `v1,<base64 HMAC-SHA256 of <prefix><body>>` under a secret. */
export async function signV1Async(
  key: HmacKeyRef,
  prefix: string,
  body: string | Uint8Array,
): Promise<string> {
  return formatStandardSignature('v1', encodeBase64(await hmacAsync(key, prefixedBytes(prefix, body))));
}

/** `v1a,<base64 Ed25519 signature of <prefix><body>>` under a `whsk_` key. */
export async function signV1aAsync(
  privateKey: string,
  prefix: string,
  body: string | Uint8Array,
): Promise<string> {
  return formatStandardSignature('v1a', await signEd25519Async(privateKey, prefixedBytes(prefix, body)));
}

async function matchesV1a(
  prepared: PreparedStandardVerification,
  message: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  const { v1a, keys } = prepared;
  if (v1a.length === 0 || keys.publicKeys.length === 0) return false;
  const given = v1a.map(decodeBase64);
  for (const publicKey of keys.publicKeys) {
    for (const signature of given) {
      if (await verifyEd25519Async(publicKey, message, signature)) return true;
    }
  }
  return false;
}

async function findMixUp(
  prepared: PreparedStandardVerification,
  message: Uint8Array<ArrayBuffer>,
): Promise<KeyMixUp | undefined> {
  if (prepared.v1.length === 0) return undefined;
  const given = prepared.v1.map(decodeBase64);
  for (const mixUp of standardMixUps(prepared.keys.hmacKeys)) {
    const expected = await hmacWithKeyAsync(mixUp.key, message);
    if (given.some((candidate) => constantTimeEqual(candidate, expected))) return mixUp;
  }
  return undefined;
}
