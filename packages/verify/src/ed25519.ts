import { Buffer } from 'node:buffer';
import * as crypto from 'node:crypto';
import { KeyCache } from './key-cache';
import {
  formatPrivateKey,
  formatPublicKey,
  readPrivateKey,
  readPublicKey,
  type StandardKeyPair,
} from './standard-key';

/**
 * Ed25519 (`v1a`) on node:crypto: key pairs in the `whsk_` / `whpk_` forms, signing and verifying.
 * Parsed `KeyObject`s are cached per key string, because a key is parsed from text and the sender signs
 * with the same few keys on every delivery attempt.
 */

// RFC 8410: the DER of a PKCS #8 Ed25519 private key is this fixed header followed by the 32-byte seed.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

// A sender signs for every agency with v1a on, so its cache is larger than a receiver's: a private
// KeyObject is small, and parsing one costs about as much as signing a 1 KiB body.
const privateKeys = new KeyCache<crypto.KeyObject>(1024);
const publicKeys = new KeyCache<crypto.KeyObject>(64);

/** A fresh Ed25519 key pair, from node:crypto's generator. */
export function generateKeyPair(): StandardKeyPair {
  const { privateKey } = crypto.generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return {
    privateKey: formatPrivateKey(Buffer.from(jwk.d as string, 'base64url')),
    publicKey: formatPublicKey(Buffer.from(jwk.x as string, 'base64url')),
  };
}

/** The `whpk_` public key of a `whsk_` private key. */
export function publicKeyFromPrivate(privateKey: string): string {
  const jwk = crypto.createPublicKey(privateKeyObject(privateKey)).export({ format: 'jwk' });
  return formatPublicKey(Buffer.from(jwk.x as string, 'base64url'));
}

/** The Ed25519 signature of `message` under a `whsk_` key, as base64. */
export function signEd25519(privateKey: string, message: Uint8Array): string {
  return crypto.sign(null, message, privateKeyObject(privateKey)).toString('base64');
}

/** Whether `signature` is the Ed25519 signature of `message` under a `whpk_` key. */
export function verifyEd25519(publicKey: string, message: Uint8Array, signature: Uint8Array): boolean {
  // An Ed25519 signature is 64 bytes; its length is public, so checking it first leaks nothing.
  if (signature.length !== 64) return false;
  return crypto.verify(null, message, publicKeys.get(publicKey, parsePublicKey), signature);
}

function privateKeyObject(privateKey: string): crypto.KeyObject {
  return privateKeys.get(privateKey, (text) =>
    crypto.createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, readPrivateKey(text)]),
      format: 'der',
      type: 'pkcs8',
    }),
  );
}

function parsePublicKey(publicKey: string): crypto.KeyObject {
  const x = Buffer.from(readPublicKey(publicKey)).toString('base64url');
  return crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}
