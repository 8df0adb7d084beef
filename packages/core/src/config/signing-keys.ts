import { generateStandardKeyPair, publicKeyToJwk } from '@svc/webhooks-verify';
import { newId } from '../ids';
import type { SignatureScheme, SigningJwk, SigningKeyRecord, SigningPublicKey } from './config';

/*
 * The `v1a` (Ed25519) key list of a configuration, as functions of the list and
 * the clock. The list is ordered: the active key first (`expiresAt: null`),
 * then retiring keys, each signing until its `expiresAt`. A key is expired once
 * `now >= expiresAt`: a rotation with no overlap (`expiresAt = now`) retires
 * the old key at once. Expired keys are skipped by every reader below and left
 * out of every list written.
 */

/** Prefix of a signing key's id. */
const KID_PREFIX = 'whkey_';

/** A fresh key pair, active from `now`. */
export function newSigningKey(now: number): SigningKeyRecord {
  const { privateKey, publicKey } = generateStandardKeyPair();
  return { kid: `${KID_PREFIX}${newId()}`, privateKey, publicKey, createdAt: now, expiresAt: null };
}

/** Whether the key still signs at `now`: active, or retiring and not expired yet. */
export function isLiveKey(key: SigningKeyRecord, now: number): boolean {
  return key.expiresAt === null || now < key.expiresAt;
}

/** The keys that sign at `now`, active first: every key not expired. */
export function liveSigningKeys(keys: readonly SigningKeyRecord[], now: number): SigningKeyRecord[] {
  return keys.filter((key) => isLiveKey(key, now));
}

/** Whether asymmetric signatures are on: the list holds an active key. */
export function hasActiveKey(keys: readonly SigningKeyRecord[]): boolean {
  return keys.some((key) => key.expiresAt === null);
}

/** Whether the scheme sends Standard Webhooks headers. */
export function sendsStandard(scheme: SignatureScheme): boolean {
  return scheme !== 'service';
}

/**
 * The list after a rotation at `now`: a new active key, the previous active key
 * retiring at `now + overlapMs` (left out when that is already past, so
 * `overlapMs` 0 drops it), and the retiring keys still live.
 */
export function rotateSigningKeys(
  keys: readonly SigningKeyRecord[],
  now: number,
  overlapMs: number,
): SigningKeyRecord[] {
  const retiring = liveSigningKeys(keys, now).map((key) =>
    key.expiresAt === null ? { ...key, expiresAt: now + overlapMs } : key,
  );
  return [newSigningKey(now), ...liveSigningKeys(retiring, now)];
}

/**
 * The list PUT /config writes when asked for `asymmetric` (undefined: as it is),
 * or undefined to keep the stored list: turning the keys on creates one key,
 * turning them off drops every key at once, and asking for what is already so
 * writes nothing.
 */
export function signingKeysFor(
  keys: readonly SigningKeyRecord[],
  asymmetric: boolean | undefined,
  now: number,
): SigningKeyRecord[] | undefined {
  if (asymmetric === undefined || asymmetric === hasActiveKey(keys)) return undefined;
  return asymmetric ? [newSigningKey(now)] : [];
}

/** The public half of each live key, as the configuration view lists them. */
export function toSigningPublicKeys(keys: readonly SigningKeyRecord[], now: number): SigningPublicKey[] {
  return liveSigningKeys(keys, now).map(({ kid, publicKey, createdAt, expiresAt }) => ({
    kid,
    publicKey,
    createdAt,
    expiresAt,
  }));
}

/** Each live key as a JSON Web Key (the agency's JWKS). */
export function toSigningJwks(keys: readonly SigningKeyRecord[], now: number): { keys: SigningJwk[] } {
  return { keys: liveSigningKeys(keys, now).map((key) => publicKeyToJwk(key.publicKey, key.kid)) };
}

/**
 * The key list as a store writes it: JSON of each key's own fields, so a
 * caller's extra properties never reach the database. Read back with
 * `JSON.parse`.
 */
export function signingKeysJson(keys: readonly SigningKeyRecord[]): string {
  return JSON.stringify(
    keys.map(({ kid, privateKey, publicKey, createdAt, expiresAt }) => ({
      kid,
      privateKey,
      publicKey,
      createdAt,
      expiresAt,
    })),
  );
}
