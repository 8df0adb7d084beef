import { everythingIn, newSecretKey } from '@svc/test-support';
import { describe, expect, it } from 'vitest';
import { createSecretCipher, type SecretEncryptionOptions } from '../src/config/secret-encryption';
import { InvalidOptionError } from '../src/errors';
import { createMemoryQueue, createMemoryStore, createWebhookService } from '../src/index';

/** A real key as a host holds it, and every other way it could be pasted: base64url, unpadded, hex. */
function pastedKey() {
  const base64 = newSecretKey();
  const bytes = Buffer.from(base64, 'base64');
  return {
    base64,
    base64url: bytes.toString('base64url'),
    unpadded: base64.replace(/=+$/, ''),
    hex: bytes.toString('hex'),
    bytes: new Uint8Array(bytes),
  };
}
type PastedKey = ReturnType<typeof pastedKey>;

function createWith(secretEncryption: unknown): unknown {
  try {
    createWebhookService({
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      secretEncryption: secretEncryption as SecretEncryptionOptions,
    });
  } catch (error) {
    return error;
  }
  throw new Error('expected createWebhookService to throw');
}

/** Every text of the key, whole and in parts, that must appear nowhere in the error. */
function textsOf(key: PastedKey): string[] {
  return [key.base64, key.base64url, key.unpadded, key.hex].flatMap((text) => [
    text,
    text.slice(0, 16),
    text.slice(-16),
  ]);
}

function expectNoKeyIn(error: unknown, key: PastedKey): void {
  const everything = `${String(error)}\n${everythingIn(error)}`;
  for (const text of textsOf(key)) expect(everything).not.toContain(text);
}

describe('secretEncryption option errors never repeat a key pasted where an id was expected', () => {
  const configured = pastedKey();
  const pasted = pastedKey();

  it.each<[string, (key: PastedKey) => unknown, string, RegExp]>([
    [
      'primaryKeyId holds the configured key (base64, as the environment has it)',
      (key) => ({ keys: { k1: key.base64 }, primaryKeyId: key.base64 }),
      'secretEncryption.primaryKeyId',
      /must be one of the ids in secretEncryption\.keys \("k1"\); got a 44-character string, not repeated here\. It is the key material of key "k1": give that key's id instead\./,
    ],
    [
      'primaryKeyId holds the configured key in base64url',
      (key) => ({ keys: { k1: key.bytes }, primaryKeyId: key.base64url }),
      'secretEncryption.primaryKeyId',
      /\("k1"\); got a 43-character string, not repeated here\. It is the key material of key "k1"/,
    ],
    [
      'primaryKeyId holds the configured key in hex',
      (key) => ({ keys: { k1: key.base64 }, primaryKeyId: key.hex }),
      'secretEncryption.primaryKeyId',
      /\("k1"\); got a 64-character string, not repeated here\. It looks like key material: give the id of a key, not the key\./,
    ],
    [
      'primaryKeyId holds a key that is not configured',
      (key) => ({ keys: { k1: configured.base64 }, primaryKeyId: key.unpadded }),
      'secretEncryption.primaryKeyId',
      /\("k1"\); got a 43-character string, not repeated here\. It looks like key material/,
    ],
    [
      'primaryKeyId holds the key as bytes',
      (key) => ({ keys: { k1: key.base64 }, primaryKeyId: key.bytes }),
      'secretEncryption.primaryKeyId',
      /got a Uint8Array of 32 bytes, not repeated here\. It looks like key material/,
    ],
    [
      'a key id is the key in base64 (not a valid id)',
      (key) => ({ keys: { [key.base64]: key.base64 }, primaryKeyId: 'k1' }),
      'secretEncryption.keys',
      /the key id at position 1 \(a 44-character string, not repeated here\) is not a short name .* It looks like key material: the key belongs in the value, under a short id such as "k2025"\./,
    ],
    [
      'a key id is the key in base64url, and is the primary',
      (key) => ({ keys: { [key.base64url]: key.base64url }, primaryKeyId: key.base64url }),
      'secretEncryption.primaryKeyId',
      /names a key whose id \(a 43-character string, not repeated here\) is the key itself, and the primary key id is stored in clear beside every secret it seals\. Give the primary key a short id/,
    ],
    [
      "a primary's id is another configured key",
      (key) => ({ keys: { k1: key.bytes, [key.base64url]: configured.base64 }, primaryKeyId: key.base64url }),
      'secretEncryption.primaryKeyId',
      /names a key whose id \(a 43-character string, not repeated here\) is the key material of key "k1"/,
    ],
    [
      'a key id and its key are swapped',
      (key) => ({ keys: { [key.base64url]: 'k1' }, primaryKeyId: 'k1' }),
      'secretEncryption.keys',
      /secretEncryption\.keys: the key at position 1 \(its id is a 43-character string, not repeated here\) must be a 32-byte key.* Its id looks like key material: are the id and the key swapped\?/,
    ],
    [
      'a key-like id with a key of the wrong length',
      (key) => ({ keys: { k1: configured.base64, [key.hex]: new Uint8Array(16) }, primaryKeyId: 'k1' }),
      'secretEncryption.keys',
      /the key at position 2 \(its id is a 64-character string, not repeated here\) must be a 32-byte key.*got 16 bytes/,
    ],
    [
      'an unknown primary, beside a configured id that is key material',
      (key) => ({ keys: { k1: configured.base64, [key.hex]: key.base64 }, primaryKeyId: 'k9' }),
      'secretEncryption.primaryKeyId',
      /\("k1", 1 id too long to repeat\); got "k9"\. A configured key id looks like key material/,
    ],
  ])('%s: InvalidOptionError that says what is wrong without the key', (_case, options, option, message) => {
    const error = createWith(options(pasted));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'invalid_option', option, details: { option } });
    expect((error as Error).cause).toBeUndefined();
    expect((error as Error).message).toMatch(/^@svc\/webhooks-core: /);
    expect((error as Error).message).toMatch(message);
    expect(String(error)).toContain((error as Error).message);
    expectNoKeyIn(error, pasted);
    expectNoKeyIn(error, configured);
  });

  it('still quotes a short id: an unknown primary and the configured ids', () => {
    const error = createWith({
      keys: { k2025: configured.base64, k2026: pasted.base64 },
      primaryKeyId: 'k2027',
    });
    expect((error as Error).message).toContain('("k2025", "k2026"); got "k2027".');
  });

  it('describes an id of 22 characters or more by its length: it could hold 16 bytes of a key', () => {
    const fragment = pasted.base64url.slice(0, 22);
    const error = createWith({ keys: { k1: configured.base64 }, primaryKeyId: fragment });
    expect((error as Error).message).toContain('got a 22-character string, not repeated here.');
    expect(everythingIn(error)).not.toContain(fragment);
  });

  it('keeps a key whose id is key material as a non-primary key, the way out of that mistake', () => {
    const cipher = createSecretCipher({
      keys: { [pasted.base64url]: pasted.base64, k2: configured.base64 },
      primaryKeyId: 'k2',
    });
    expect(cipher.seal('agency-a', 'a'.repeat(64))).toMatch(/^enc:v1:k2:/);
  });
});
