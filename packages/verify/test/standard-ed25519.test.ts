import * as crypto from 'node:crypto';
import {
  generateStandardKeyPair,
  publicKeyOf,
  publicKeyToJwk,
  signStandardWebhook,
  WebhookVerificationError,
} from '@svc/webhooks-verify';
import {
  generateStandardKeyPairAsync,
  publicKeyOfAsync,
  signStandardWebhookAsymmetricAsync,
  verifyStandardWebhookSignatureAsync,
} from '@svc/webhooks-verify/web';
import { describe, expect, it, vi } from 'vitest';
import { rejection } from './entries';
import { BODY, ID, NOW, NOW_SECONDS, SECRET, standardHeaders } from './fixtures';
import { standardEntries } from './standard-entries';

/*
 * v1a (Ed25519) against node:crypto's own Ed25519, in both directions, on both entries. Keys are built
 * here with node:crypto and put into the Standard Webhooks forms by hand: whsk_ = base64 of the 32-byte
 * seed, whpk_ = base64 of the 32-byte raw public key.
 */

const at = { now: NOW };
const content = Buffer.from(`${ID}.${NOW_SECONDS}.${BODY}`);

function nodeKeyPair() {
  const pair = crypto.generateKeyPairSync('ed25519');
  const jwk = pair.privateKey.export({ format: 'jwk' });
  return {
    ...pair,
    whsk: `whsk_${Buffer.from(jwk.d as string, 'base64url').toString('base64')}`,
    whpk: `whpk_${Buffer.from(jwk.x as string, 'base64url').toString('base64')}`,
    x: jwk.x as string,
  };
}

function nodeV1a(privateKey: crypto.KeyObject, message: Buffer = content): string {
  return `v1a,${crypto.sign(null, message, privateKey).toString('base64')}`;
}

describe.each(standardEntries)('$name v1a', (entry) => {
  it('verifies a signature node:crypto made, by whpk_ key, JWK and JWKS', async () => {
    const keys = nodeKeyPair();
    const headers = standardHeaders(nodeV1a(keys.privateKey));
    const jwk = publicKeyToJwk(keys.whpk, 'whkey_1');
    for (const key of [keys.whpk, [keys.whpk], { keys: [jwk] }]) {
      await expect(entry.verifySignature(BODY, headers, key, at)).resolves.toEqual({
        id: ID,
        timestamp: NOW,
      });
    }
  });

  it('signs what node:crypto verifies', async () => {
    const keys = nodeKeyPair();
    const signature = await entry.signAsymmetric(BODY, keys.whsk, ID, NOW_SECONDS);
    expect(signature).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(crypto.verify(null, content, keys.publicKey, Buffer.from(signature.slice(4), 'base64'))).toBe(
      true,
    );
  });

  it('signs bytes and the equal string identically', async () => {
    const { whsk } = nodeKeyPair();
    expect(await entry.signAsymmetric(Buffer.from(BODY), whsk, ID, NOW_SECONDS)).toBe(
      await entry.signAsymmetric(BODY, whsk, ID, NOW_SECONDS),
    );
  });

  it('accepts when any public key verifies any v1a entry (key rotation overlap)', async () => {
    const [retiring, active, stranger] = [nodeKeyPair(), nodeKeyPair(), nodeKeyPair()];
    const headers = standardHeaders(`${nodeV1a(stranger.privateKey)} ${nodeV1a(retiring.privateKey)}`);
    await expect(
      entry.verifySignature(BODY, headers, [active.whpk, retiring.whpk], at),
    ).resolves.toBeDefined();
  });

  it('accepts a v1 and a v1a side by side with either key', async () => {
    const keys = nodeKeyPair();
    const v1 = signStandardWebhook(BODY, SECRET, ID, NOW_SECONDS);
    const headers = standardHeaders(`${v1} ${nodeV1a(keys.privateKey)}`);
    await expect(entry.verifySignature(BODY, headers, SECRET, at)).resolves.toBeDefined();
    await expect(entry.verifySignature(BODY, headers, keys.whpk, at)).resolves.toBeDefined();
  });

  it('refuses a v1a made over other content, or by another key, with signature_mismatch', async () => {
    const keys = nodeKeyPair();
    const wrongContent = standardHeaders(nodeV1a(keys.privateKey, Buffer.from(`${ID}.${NOW_SECONDS}.{}`)));
    const error = await rejection(entry.verify(BODY, wrongContent, keys.whpk, at));
    expect(error.code).toBe('signature_mismatch');
    expect(error.message).toMatch(/no v1a signature verifies under the public key/i);
    const otherKey = standardHeaders(nodeV1a(nodeKeyPair().privateKey));
    expect((await rejection(entry.verify(BODY, otherKey, keys.whpk, at))).code).toBe('signature_mismatch');
  });

  it('refuses a v1a of the wrong length, and v1a checked against secrets only, with signature_mismatch', async () => {
    const short = standardHeaders(`v1a,${Buffer.alloc(32).toString('base64')}`);
    expect((await rejection(entry.verify(BODY, short, nodeKeyPair().whpk, at))).code).toBe(
      'signature_mismatch',
    );
    const error = await rejection(
      entry.verify(BODY, standardHeaders(nodeV1a(nodeKeyPair().privateKey)), SECRET, at),
    );
    expect(error.message).toMatch(/only v1a \(Ed25519\) signatures, and only secrets were given/);
  });

  it('skips JWKS keys of other kinds, and refuses a JWKS with no Ed25519 key', async () => {
    const keys = nodeKeyPair();
    const headers = standardHeaders(nodeV1a(keys.privateKey));
    const rsa = { kty: 'RSA', n: 'AQAB', e: 'AQAB', kid: 'rsa' };
    const encryption = { kty: 'OKP', crv: 'X25519', x: keys.x, kid: 'x' };
    const jwks = { keys: [rsa, encryption, publicKeyToJwk(keys.whpk, 'k')] };
    await expect(entry.verifySignature(BODY, headers, jwks, at)).resolves.toBeDefined();
    const error = await rejection(entry.verify(BODY, headers, { keys: [rsa] }, at));
    expect(error.code).toBe('invalid_secret');
    expect(error.message).toMatch(/no Ed25519 public key/);
  });

  it('refuses an Ed25519 JWK whose x is damaged with invalid_secret', async () => {
    const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'whkey_9' }] };
    const error = await rejection(entry.verify(BODY, standardHeaders('v1a,AAAA'), jwks, at));
    expect(error.code).toBe('invalid_secret');
    expect(error.message).toMatch(/"whkey_9" has no valid "x"/);
  });

  it.each([
    ['a public key', () => nodeKeyPair().whpk],
    ['a hex secret', () => SECRET],
    ['a seed of the wrong length', () => `whsk_${Buffer.alloc(16).toString('base64')}`],
  ])('refuses to sign with %s (invalid_secret)', async (_label, key) => {
    const error = await rejection(entry.signAsymmetric(BODY, key(), ID, NOW_SECONDS));
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.code).toBe('invalid_secret');
    expect(error.message).toMatch(/not a private signing key/);
  });
});

describe('key pairs and their forms', () => {
  it('generates whsk_ / whpk_ pairs whose public key node:crypto derives from the seed', async () => {
    for (const pair of [generateStandardKeyPair(), await generateStandardKeyPairAsync()]) {
      expect(pair.privateKey).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
      expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
      const seed = Buffer.from(pair.privateKey.slice(5), 'base64');
      const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
      const jwk = crypto
        .createPublicKey(crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }))
        .export({
          format: 'jwk',
        });
      expect(pair.publicKey).toBe(`whpk_${Buffer.from(jwk.x as string, 'base64url').toString('base64')}`);
    }
  });

  it('publicKeyOf and publicKeyOfAsync give the public key of a private key', async () => {
    const keys = nodeKeyPair();
    expect(publicKeyOf(keys.whsk)).toBe(keys.whpk);
    expect(await publicKeyOfAsync(keys.whsk)).toBe(keys.whpk);
    expect(() => publicKeyOf(keys.whpk)).toThrow(/not a private signing key/);
  });

  it('publicKeyToJwk gives the JWK node:crypto exports, with kid, use and alg', () => {
    const keys = nodeKeyPair();
    expect(publicKeyToJwk(keys.whpk, 'whkey_01')).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: keys.x,
      kid: 'whkey_01',
      use: 'sig',
      alg: 'EdDSA',
    });
    expect(() => publicKeyToJwk(keys.whsk, 'k')).toThrow(/not a public key/);
  });
});

describe('web entry Ed25519 keys', () => {
  it('imports a signing key once across signatures', async () => {
    const { whsk } = nodeKeyPair();
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey');
    try {
      await Promise.all([1, 2, 3].map(() => signStandardWebhookAsymmetricAsync(BODY, whsk, ID, NOW_SECONDS)));
      expect(importKey).toHaveBeenCalledTimes(1);
    } finally {
      importKey.mockRestore();
    }
  });

  it('rejects with web_crypto_unavailable where Web Crypto lacks Ed25519, and recovers where it has it', async () => {
    const keys = nodeKeyPair();
    const headers = standardHeaders(nodeV1a(keys.privateKey));
    const unsupported = Object.assign(new Error('Unrecognized algorithm name'), {
      name: 'NotSupportedError',
    });
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey').mockRejectedValue(unsupported);
    try {
      const error = await rejection(verifyStandardWebhookSignatureAsync(BODY, headers, keys.whpk, at));
      expect(error.code).toBe('web_crypto_unavailable');
      expect(error.message).toMatch(/cannot use Ed25519 keys, which v1a signatures need \(NotSupportedError/);
      expect(error.message).toMatch(/Node entry/);
      expect(error.cause).toBe(unsupported);
    } finally {
      importKey.mockRestore();
    }
    await expect(verifyStandardWebhookSignatureAsync(BODY, headers, keys.whpk, at)).resolves.toBeDefined();
  });
});
