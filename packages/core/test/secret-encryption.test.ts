import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../src/config/secret';
import { createSecretCipher, type SecretEncryptionOptions } from '../src/config/secret-encryption';
import {
  InvalidOptionError,
  SecretKeyUnavailableError,
  SecretUndecryptableError,
  WebhookError,
} from '../src/errors';
import { createMemoryQueue, createMemoryStore, createWebhookService } from '../src/index';

const K1 = randomBytes(32);
const K2 = randomBytes(32);
const both = (primaryKeyId = 'k1'): SecretEncryptionOptions => ({ keys: { k1: K1, k2: K2 }, primaryKeyId });
const SEALED_FORMAT = /^enc:v1:k1:[A-Za-z0-9_-]+$/;

/** The stored value with the byte at `index` of its decoded payload flipped. */
function flipPayloadByte(stored: string, index: number): string {
  const split = stored.lastIndexOf(':') + 1;
  const bytes = Buffer.from(stored.slice(split), 'base64url');
  const at = (index + bytes.length) % bytes.length;
  bytes.writeUInt8(bytes.readUInt8(at) ^ 0x01, at);
  return `${stored.slice(0, split)}${bytes.toString('base64url')}`;
}

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('the secret cipher: sealing and opening', () => {
  const cipher = createSecretCipher(both());
  const secret = generateSigningSecret();

  it('seals as enc:v1:<keyId>:<base64url of a 12-byte IV, the ciphertext and a 16-byte tag>, and opens it back', () => {
    const stored = cipher.seal('agency-a', secret);
    expect(stored).toMatch(SEALED_FORMAT);
    expect(Buffer.from(stored.slice('enc:v1:k1:'.length), 'base64url')).toHaveLength(12 + 64 + 16);
    expect(stored).not.toContain(secret);
    expect(cipher.open('agency-a', stored)).toBe(secret);
  });

  it('uses a fresh IV per seal: the same secret never seals to the same value twice', () => {
    const sealed = new Set(Array.from({ length: 50 }, () => cipher.seal('agency-a', secret)));
    expect(sealed.size).toBe(50);
    for (const stored of sealed) expect(cipher.open('agency-a', stored)).toBe(secret);
  });

  it('passes a legacy plaintext secret through, and tells current values from stale ones', () => {
    expect(cipher.open('agency-a', secret)).toBe(secret);
    expect(cipher.isCurrent(secret), 'plaintext').toBe(false);
    expect(cipher.isCurrent(cipher.seal('agency-a', secret)), 'under the primary').toBe(true);
    const underK2 = createSecretCipher(both('k2')).seal('agency-a', secret);
    expect(cipher.isCurrent(underK2), 'under another key').toBe(false);
    expect(cipher.open('agency-a', underK2), 'a non-primary key still opens').toBe(secret);
  });

  it.each([
    ['the IV', 0],
    ['the ciphertext', 20],
    ['the tag', -1],
  ])(
    'a flipped bit in %s fails authentication with SecretUndecryptableError naming the key',
    (_part, index) => {
      const tampered = flipPayloadByte(cipher.seal('agency-a', secret), index);
      const error = caught(() => cipher.open('agency-a', tampered));
      expect(error).toBeInstanceOf(SecretUndecryptableError);
      expect(error).toMatchObject({ code: 'secret_undecryptable', keyId: 'k1', agencyId: 'agency-a' });
    },
  );

  it('binds the agency: a value copied to another agency does not open there', () => {
    const stored = cipher.seal('agency-a', secret);
    expect(() => cipher.open('agency-b', stored)).toThrow(SecretUndecryptableError);
    expect(caught(() => cipher.open('agency-b', stored))).toMatchObject({
      agencyId: 'agency-b',
      keyId: 'k1',
    });
  });

  it('binds the key id: a value relabelled with another configured key does not open', () => {
    const relabelled = cipher.seal('agency-a', secret).replace('enc:v1:k1:', 'enc:v1:k2:');
    expect(caught(() => cipher.open('agency-a', relabelled))).toMatchObject({ keyId: 'k2' });
  });

  it.each([
    ['a truncated payload', (stored: string) => stored.slice(0, 30)],
    ['an empty payload', () => 'enc:v1:k1:'],
    ['another format version', (stored: string) => stored.replace('enc:v1:', 'enc:v2:')],
    ['characters outside base64url', (stored: string) => `${stored}+/=`],
  ])('refuses %s with SecretUndecryptableError', (_case, mangle) => {
    expect(() => cipher.open('agency-a', mangle(cipher.seal('agency-a', secret)))).toThrow(
      SecretUndecryptableError,
    );
  });

  it('a key id it was not given: SecretKeyUnavailableError naming the key and the agency, not the value', () => {
    const onlyK2 = createSecretCipher({ keys: { k2: K2 }, primaryKeyId: 'k2' });
    const stored = cipher.seal('agency-a', secret);
    const error = caught(() => onlyK2.open('agency-a', stored));
    expect(error).toBeInstanceOf(SecretKeyUnavailableError);
    expect(error).toBeInstanceOf(WebhookError);
    expect(error).toMatchObject({
      code: 'secret_key_unavailable',
      keyId: 'k1',
      agencyId: 'agency-a',
      details: { keyId: 'k1', agencyId: 'agency-a' },
    });
    expect((error as Error).message).toContain('key "k1" is not among secretEncryption.keys');
    const text = `${(error as Error).message} ${JSON.stringify(error)}`;
    expect(text).not.toContain(secret);
    expect(text).not.toContain(stored.slice(10));
  });

  it('without secretEncryption: stores plaintext, and a sealed value fails saying that no keys were given', () => {
    const none = createSecretCipher(undefined);
    expect(none.encrypting).toBe(false);
    expect(none.seal('agency-a', secret)).toBe(secret);
    expect(none.isCurrent(secret)).toBe(true);
    const error = caught(() => none.open('agency-a', cipher.seal('agency-a', secret)));
    expect(error).toMatchObject({ code: 'secret_key_unavailable', keyId: 'k1' });
    expect((error as Error).message).toContain('this service has no secretEncryption option');
  });

  it('takes a key as bytes, base64 with or without padding, or base64url, and keeps its own copy', () => {
    const bytes = new Uint8Array(randomBytes(32));
    const base64 = Buffer.from(bytes).toString('base64');
    const forms = [bytes, base64, base64.replace(/=+$/, ''), Buffer.from(bytes).toString('base64url')];
    const ciphers = forms.map((key) => createSecretCipher({ keys: { k: key }, primaryKeyId: 'k' }));
    bytes.fill(0);
    const stored = ciphers[0]?.seal('agency-a', secret) ?? '';
    for (const each of ciphers) expect(each.open('agency-a', stored)).toBe(secret);
  });
});

describe('the secretEncryption option, checked when the service is created', () => {
  const key = K1.toString('base64');

  it.each<[string, unknown, string, RegExp]>([
    ['no keys', { keys: {}, primaryKeyId: 'k1' }, 'secretEncryption.keys', /at least one key/],
    ['keys not an object', { keys: 'k1', primaryKeyId: 'k1' }, 'secretEncryption.keys', /at least one key/],
    [
      'a 16-byte key',
      { keys: { k1: new Uint8Array(16) }, primaryKeyId: 'k1' },
      'secretEncryption.keys.k1',
      /got 16 bytes/,
    ],
    [
      'a 33-byte base64 key',
      { keys: { k1: randomBytes(33).toString('base64') }, primaryKeyId: 'k1' },
      'secretEncryption.keys.k1',
      /got 33 bytes/,
    ],
    [
      'a key that is not base64',
      { keys: { k1: 'not base64 at all!' }, primaryKeyId: 'k1' },
      'secretEncryption.keys.k1',
      /not base64/,
    ],
    [
      'a number for a key',
      { keys: { k1: 42 }, primaryKeyId: 'k1' },
      'secretEncryption.keys.k1',
      /got number/,
    ],
    [
      'a key id with a space',
      { keys: { 'key one': key }, primaryKeyId: 'key one' },
      'secretEncryption.keys',
      /position 1/,
    ],
    [
      'a key id of 65 characters',
      { keys: { ['k'.repeat(65)]: key }, primaryKeyId: 'k' },
      'secretEncryption.keys',
      /short name/,
    ],
    [
      'a primary that is not a key',
      { keys: { k1: key }, primaryKeyId: 'k9' },
      'secretEncryption.primaryKeyId',
      /\("k1"\); got "k9"/,
    ],
    ['no primary', { keys: { k1: key } }, 'secretEncryption.primaryKeyId', /got none/],
  ])('refuses %s with InvalidOptionError naming the option', (_case, options, option, message) => {
    const create = () =>
      createWebhookService({
        store: createMemoryStore(),
        queue: createMemoryQueue(),
        secretEncryption: options as SecretEncryptionOptions,
      });
    const error = caught(create);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'invalid_option', option });
    expect((error as Error).message).toMatch(/^@svc\/webhooks-core: /);
    expect((error as Error).message).toMatch(message);
  });

  it('never repeats key material: not a key, and not an id that may be one', () => {
    const material = randomBytes(32).toString('base64');
    const misplaced = { keys: { [`${material}=`]: material }, primaryKeyId: 'k1' };
    const short = { keys: { k1: material.slice(0, 20) }, primaryKeyId: 'k1' };
    for (const options of [misplaced, short]) {
      const error = caught(() => createSecretCipher(options));
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).not.toContain(material.slice(0, 20));
    }
  });
});
