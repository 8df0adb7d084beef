import type { WebhookStore } from '../adapters/store';
import type { SigningKeyRecord, WebhookConfigRecord } from '../config/config';
import { isSealedSecret, type SecretCipher } from '../config/secret-encryption';
import { redactSecrets } from '../config/secret-redaction';

/*
 * The Ed25519 private keys of `v1a` signatures, sealed at rest exactly as the
 * signing secret is: the same cipher, the same agency-bound associated data, so
 * a key copied to another agency's configuration fails to open. Public keys,
 * kids and dates stay readable: the views and the JWKS need no key to build.
 */

/** `keys` with every private key sealed for `agencyId` (new objects; `keys` is not changed). */
export function sealSigningKeys(
  cipher: SecretCipher,
  agencyId: string,
  keys: readonly SigningKeyRecord[],
): SigningKeyRecord[] {
  return keys.map((key) => ({ ...key, privateKey: cipher.seal(agencyId, key.privateKey) }));
}

/**
 * `keys` with each private key opened on its first read, for the reason the
 * secret is opened lazily: reading a configuration for its subscriptions, its
 * view or its JWKS must not fail while a key is missing. Reading a
 * `privateKey` throws the cipher's typed error.
 */
export function withOpenedSigningKeys(
  cipher: SecretCipher,
  agencyId: string,
  keys: readonly SigningKeyRecord[],
): SigningKeyRecord[] {
  return keys.map((key) => (isSealedSecret(key.privateKey) ? lazilyOpened(cipher, agencyId, key) : key));
}

function lazilyOpened(cipher: SecretCipher, agencyId: string, key: SigningKeyRecord): SigningKeyRecord {
  const { privateKey: stored, ...fields } = key;
  let privateKey: string | undefined;
  return Object.defineProperty(fields, 'privateKey', {
    enumerable: true,
    configurable: true,
    get: () => {
      privateKey ??= cipher.open(agencyId, stored);
      return privateKey;
    },
    set: (value: string) => {
      privateKey = value;
    },
  }) as SigningKeyRecord;
}

/** Every private key of `keys`, to redact from a failed write's error. */
export function privateKeysOf(keys: readonly SigningKeyRecord[] | undefined): string[] {
  return keys?.map((key) => key.privateKey) ?? [];
}

/** True when every private key of `keys` is stored as the cipher would write it now. */
export function signingKeysCurrent(cipher: SecretCipher, keys: readonly SigningKeyRecord[]): boolean {
  return keys.every((key) => cipher.isCurrent(key.privateKey));
}

/**
 * Re-seals the private keys of `raw` (a configuration as the host's store holds
 * it) under the primary key, keeping `updatedAt`. Returns true when it wrote.
 *
 * @remarks The store's `setSigningKeys` has no precondition, so this re-reads
 * the configuration and writes only when its stored keys are still exactly
 * those of `raw` (same kids, same sealed strings, same order): a rotation or a
 * PUT seen by then wins, and nothing is written. A key write landing in the
 * one round trip between that read and this write would be overwritten by the
 * older list re-sealed; key writes are rare and re-encryption is an operator's
 * run, so that window is accepted rather than widening the store contract.
 * @throws SecretKeyUnavailableError, SecretUndecryptableError when a stored key cannot be opened
 */
export async function resealSigningKeys(
  store: WebhookStore,
  cipher: SecretCipher,
  raw: WebhookConfigRecord,
): Promise<boolean> {
  const { agencyId } = raw;
  const resealed = raw.signingKeys.map((key) => ({
    ...key,
    privateKey: cipher.seal(agencyId, cipher.open(agencyId, key.privateKey)),
  }));
  const current = await store.getConfig(agencyId);
  if (!current || !sameStoredKeys(current.signingKeys, raw.signingKeys)) return false;
  try {
    return (await store.setSigningKeys(agencyId, resealed, current.updatedAt)) !== null;
  } catch (error) {
    throw redactSecrets(error, privateKeysOf(resealed));
  }
}

function sameStoredKeys(a: readonly SigningKeyRecord[], b: readonly SigningKeyRecord[]): boolean {
  return (
    a.length === b.length &&
    a.every((key, index) => key.kid === b[index]?.kid && key.privateKey === b[index]?.privateKey)
  );
}
