import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { InvalidOptionError, SecretKeyUnavailableError, SecretUndecryptableError } from '../errors';

/*
 * Signing secrets sealed at rest. A sealed value is one self-describing string:
 *
 *   enc:v1:<keyId>:<base64url of iv (12 bytes) ‖ ciphertext ‖ GCM tag (16 bytes)>
 *
 * AES-256-GCM with a fresh random IV per seal. The associated data is the
 * header `enc:v1:<keyId>:` followed by the agency id (UTF-8): a value copied
 * to another agency's configuration, or relabelled with another key id, fails
 * authentication instead of signing for the wrong tenant. Generated secrets
 * are 64 lowercase hex characters, so no plaintext secret ever starts with
 * `enc:`: a stored value without that mark is a legacy plaintext secret and is
 * used as it is.
 */

/**
 * The `secretEncryption` option of `createWebhookService`: the keys that seal
 * signing secrets at rest, and which of them seals new ones.
 *
 * @example
 * ```ts
 * createWebhookService({
 *   store,
 *   queue,
 *   secretEncryption: { keys: { k2025: process.env.WEBHOOK_SECRET_KEY! }, primaryKeyId: 'k2025' },
 * });
 * ```
 */
export interface SecretEncryptionOptions {
  /**
   * Every key a stored secret may be sealed under, by key id. A key is 32 bytes:
   * a `Uint8Array` (or `Buffer`) of 32 bytes, or a base64 (or base64url) string
   * of them, such as the output of `openssl rand -base64 32`. A key id is a short
   * name of letters, digits, `_` and `-` (at most 64), stored beside each
   * ciphertext: keep a key for as long as any secret is sealed under it.
   */
  keys: Readonly<Record<string, string | Uint8Array>>;
  /**
   * The id of the key that seals every secret written from now on; one of `keys`. It is stored in
   * clear beside each secret it seals, so it must be a name, never key material.
   */
  primaryKeyId: string;
}

/** Seals and opens stored signing secrets (internal: the service's store decorator uses it). */
export interface SecretCipher {
  /** True when keys were given; false means secrets are stored as given. */
  readonly encrypting: boolean;
  /** The stored form of `secret` for `agencyId`: sealed under the primary key, or `secret` itself without keys. */
  seal(agencyId: string, secret: string): string;
  /**
   * The secret a stored value holds: a sealed value opened, a legacy plaintext as it is.
   * @throws SecretKeyUnavailableError, SecretUndecryptableError
   */
  open(agencyId: string, stored: string): string;
  /** True when `stored` is already what {@link seal} would write now (sealed under the primary key, or plaintext without keys). */
  isCurrent(stored: string): boolean;
}

const PACKAGE = '@svc/webhooks-core';
const SEALED_MARK = 'enc:';
const VERSION_PREFIX = 'enc:v1:';
const SEALED_PATTERN = /^enc:v1:([A-Za-z0-9_-]{1,64}):([A-Za-z0-9_-]+)$/;
const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** True when a stored secret is sealed (`enc:…`); false for a legacy plaintext one. */
export function isSealedSecret(stored: string): boolean {
  return stored.startsWith(SEALED_MARK);
}

/**
 * The cipher for the service's `secretEncryption` option; without it, one that
 * stores secrets as given and refuses sealed values with SecretKeyUnavailableError
 * (signing with a ciphertext would fail every delivery without saying why).
 * @throws InvalidOptionError when a key, a key id or the primary key id is unusable
 */
export function createSecretCipher(options: SecretEncryptionOptions | undefined): SecretCipher {
  if (options === undefined) return plaintextCipher;
  const keys = parseKeys(options);
  const primaryKeyId = parsePrimaryKeyId(options.primaryKeyId, keys);
  const primaryKey = keys.get(primaryKeyId) as KeyObject;
  const primaryHeader = `${VERSION_PREFIX}${primaryKeyId}:`;
  return {
    encrypting: true,
    seal: (agencyId, secret) => sealWith(primaryKey, primaryHeader, agencyId, secret),
    open: (agencyId, stored) => openWith(keys, agencyId, stored),
    isCurrent: (stored) => stored.startsWith(primaryHeader),
  };
}

const plaintextCipher: SecretCipher = {
  encrypting: false,
  seal: (_agencyId, secret) => secret,
  open: (agencyId, stored) => openWith(new Map(), agencyId, stored),
  isCurrent: (stored) => !isSealedSecret(stored),
};

function sealWith(key: KeyObject, header: string, agencyId: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(header, agencyId));
  const sealed = Buffer.concat([iv, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${header}${sealed.toString('base64url')}`;
}

function openWith(keys: ReadonlyMap<string, KeyObject>, agencyId: string, stored: string): string {
  if (!isSealedSecret(stored)) return stored;
  const match = SEALED_PATTERN.exec(stored);
  if (!match) throw new SecretUndecryptableError(null, agencyId);
  const [, keyId = '', payload = ''] = match;
  const key = keys.get(keyId);
  if (!key) throw new SecretKeyUnavailableError(keyId, agencyId, keys.size > 0);
  const bytes = Buffer.from(payload, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) throw new SecretUndecryptableError(keyId, agencyId);
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(associatedData(`${VERSION_PREFIX}${keyId}:`, agencyId));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    const plain = decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES));
    return Buffer.concat([plain, decipher.final()]).toString('utf8');
  } catch {
    // node:crypto says only "unable to authenticate data"; the typed error says what to check.
    throw new SecretUndecryptableError(keyId, agencyId);
  }
}

function associatedData(header: string, agencyId: string): Buffer {
  return Buffer.from(`${header}${agencyId}`, 'utf8');
}

/*
 * Option errors never repeat key material (docs/security.md, "Secrets at rest"). A key value is
 * never echoed; a value given where a key id was expected is echoed only when it is a short id
 * (at most ECHOED_ID_CHARS of the id alphabet): 22 base64 or 32 hex characters can already hold
 * 16 bytes of a key, so anything longer, or outside the alphabet, is described by its length and
 * shape instead. The same goes for the option path (`secretEncryption.keys.<id>`), which is also
 * the error's `option` and `details`.
 */
const ECHOED_ID_CHARS = 21;
const KEY_LIKE_BYTES = 16;
const HEX_KEY_LIKE_PATTERN = /^[0-9a-f]{32,}$/i;

function parseKeys(options: SecretEncryptionOptions): Map<string, KeyObject> {
  const given = (options as Partial<SecretEncryptionOptions> | null)?.keys;
  if (typeof given !== 'object' || given === null || Object.keys(given).length === 0) {
    throw new InvalidOptionError(
      PACKAGE,
      'secretEncryption.keys',
      'secretEncryption.keys must name at least one key: { keys: { k1: <32-byte key> }, primaryKeyId: "k1" }.',
    );
  }
  const keys = new Map<string, KeyObject>();
  Object.entries(given).forEach(([id, value], index) => {
    if (!KEY_ID_PATTERN.test(id)) throw badKeyId(id, index);
    keys.set(id, parseKey(id, index, value));
  });
  return keys;
}

function badKeyId(id: string, index: number): InvalidOptionError {
  return new InvalidOptionError(
    PACKAGE,
    'secretEncryption.keys',
    `secretEncryption.keys: the key id at position ${index + 1} (${describeGiven(id)}) is not a short name ` +
      '(1 to 64 letters, digits, "_" or "-"); it is stored beside every ciphertext sealed under it.' +
      (looksLikeKey(id)
        ? ' It looks like key material: the key belongs in the value, under a short id such as "k2025".'
        : ''),
  );
}

function parseKey(id: string, index: number, value: unknown): KeyObject {
  const bytes = value instanceof Uint8Array ? value : typeof value === 'string' ? decodeBase64(value) : null;
  if (bytes?.length !== KEY_BYTES) {
    const got =
      bytes === null
        ? `got ${typeof value === 'string' ? 'a string that is not base64' : typeof value}`
        : `got ${bytes.length} byte${bytes.length === 1 ? '' : 's'}`;
    const option = isEchoableId(id) ? `secretEncryption.keys.${id}` : 'secretEncryption.keys';
    const subject = isEchoableId(id)
      ? option
      : `secretEncryption.keys: the key at position ${index + 1} (its id is ${describeGiven(id)})`;
    throw new InvalidOptionError(
      PACKAGE,
      option,
      `${subject} must be a 32-byte key: a Uint8Array of 32 bytes, or a base64 string ` +
        `of them (such as the output of \`openssl rand -base64 32\`); ${got}.` +
        (looksLikeKey(id) ? ' Its id looks like key material: are the id and the key swapped?' : ''),
    );
  }
  return createSecretKey(Buffer.from(bytes));
}

/** The bytes of a base64 or base64url string (padding optional), or null when it is neither. */
function decodeBase64(text: string): Uint8Array | null {
  const normalised = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]+$/.test(normalised)) return null;
  const bytes = Buffer.from(normalised, 'base64');
  // Buffer ignores stray bits at the end; a string that does not round-trip is a typo, not a key.
  return bytes.toString('base64').replace(/=+$/, '') === normalised ? bytes : null;
}

function parsePrimaryKeyId(primaryKeyId: unknown, keys: ReadonlyMap<string, KeyObject>): string {
  if (typeof primaryKeyId === 'string' && keys.has(primaryKeyId)) {
    refuseKeyAsPrimaryId(primaryKeyId, keys);
    return primaryKeyId;
  }
  throw new InvalidOptionError(
    PACKAGE,
    'secretEncryption.primaryKeyId',
    `secretEncryption.primaryKeyId must be one of the ids in secretEncryption.keys ` +
      `(${listIds(keys)}); got ${describeGiven(primaryKeyId)}.${primaryKeyIdHint(primaryKeyId, keys)}`,
  );
}

/** What a primary key id that is not a configured id most likely is, when it looks like a key. */
function primaryKeyIdHint(primaryKeyId: unknown, keys: ReadonlyMap<string, KeyObject>): string {
  const named = typeof primaryKeyId === 'string' ? keyNamedBy(primaryKeyId, keys) : null;
  if (named !== null) {
    return ` It is the key material of ${nameKey(named, keys)}: give that key's id instead.`;
  }
  if (looksLikeKey(primaryKeyId)) return ' It looks like key material: give the id of a key, not the key.';
  if ([...keys.keys()].some(looksLikeKey)) {
    return ' A configured key id looks like key material: the key belongs in the value, under a short id.';
  }
  return '';
}

/*
 * The primary's id is written in clear beside every secret it seals, so a primary whose id is
 * key material (the key pasted as its own id, say) would put that key into every stored secret.
 * Such an id may stay as a non-primary key: it only opens what is already sealed under it, which
 * is the way out (a new primary with a short id, then reencryptSecrets()).
 */
function refuseKeyAsPrimaryId(primaryKeyId: string, keys: ReadonlyMap<string, KeyObject>): void {
  const named = keyNamedBy(primaryKeyId, keys);
  if (named === null) return;
  const which = named === primaryKeyId ? 'the key itself' : `the key material of ${nameKey(named, keys)}`;
  throw new InvalidOptionError(
    PACKAGE,
    'secretEncryption.primaryKeyId',
    `secretEncryption.primaryKeyId names a key whose id (${describeGiven(primaryKeyId)}) is ${which}, ` +
      'and the primary key id is stored in clear beside every secret it seals. Give the primary key a short ' +
      'id such as "k2025"; the key may stay under its current id as a non-primary key, to open the secrets ' +
      'already sealed under it until reencryptSecrets() has re-sealed them.',
  );
}

/** True when an id may be repeated in an error: a short name that cannot hold 16 bytes of a key. */
function isEchoableId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= ECHOED_ID_CHARS && KEY_ID_PATTERN.test(value);
}

/** True for 16 bytes or more, or a string that encodes them (base64, base64url or hex), as key material does. */
function looksLikeKey(value: unknown): boolean {
  if (value instanceof Uint8Array) return value.length >= KEY_LIKE_BYTES;
  if (typeof value !== 'string') return false;
  return HEX_KEY_LIKE_PATTERN.test(value) || (decodeBase64(value)?.length ?? 0) >= KEY_LIKE_BYTES;
}

/** A value given where a key id was expected, in words: quoted when it is a short id, else only its shape. */
function describeGiven(value: unknown): string {
  if (value === undefined) return 'none';
  if (value === null) return 'null';
  if (isEchoableId(value)) return `"${value}"`;
  if (typeof value === 'string') return `a ${value.length}-character string, not repeated here`;
  if (value instanceof Uint8Array) return `a Uint8Array of ${value.length} bytes, not repeated here`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The configured ids for an error: the short ones quoted, the others only counted. */
function listIds(keys: ReadonlyMap<string, KeyObject>): string {
  const ids = [...keys.keys()];
  const shown = ids.filter(isEchoableId).map((id) => `"${id}"`);
  const hidden = ids.length - shown.length;
  if (hidden === 0) return shown.join(', ');
  return [...shown, `${hidden} id${hidden === 1 ? '' : 's'} too long to repeat`].join(', ');
}

/** The id of the configured key whose bytes `text` encodes, or null (compared in constant time). */
function keyNamedBy(text: string, keys: ReadonlyMap<string, KeyObject>): string | null {
  const bytes = decodeBase64(text);
  if (bytes?.length !== KEY_BYTES) return null;
  for (const [id, key] of keys) if (timingSafeEqual(bytes, key.export())) return id;
  return null;
}

/** A configured key in words: by its id when that may be repeated, else by its position. */
function nameKey(id: string, keys: ReadonlyMap<string, KeyObject>): string {
  return isEchoableId(id) ? `key "${id}"` : `the key at position ${[...keys.keys()].indexOf(id) + 1}`;
}
