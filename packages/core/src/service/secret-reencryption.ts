import type { WebhookStore } from '../adapters/store';
import type { SecretCipher } from '../config/secret-encryption';
import { InvalidOptionError } from '../errors';
import { positiveIntegerOption } from '../validation';
import { resealSecret } from './sealed-secret-store';
import { resealSigningKeys, signingKeysCurrent } from './sealed-signing-keys';

/** Options of {@link WebhookService.reencryptSecrets}. */
export interface ReencryptSecretsOptions {
  /**
   * Configurations read per `listConfigs` call.
   * @default 100
   */
  pageSize?: number;
}

/** What {@link WebhookService.reencryptSecrets} did. */
export interface ReencryptSecretsResult {
  /** Configurations looked at. */
  examined: number;
  /**
   * Secrets re-sealed under the primary key (they were plaintext or under another
   * key). One rotated or deleted while the call ran is left to that write and not counted.
   */
  reencrypted: number;
  /**
   * Configurations whose `v1a` private keys were re-sealed under the primary key. One whose
   * keys were rotated or replaced while the call ran is left to that write and not counted.
   */
  reencryptedSigningKeys: number;
}

const DEFAULT_PAGE_SIZE = 100;

/**
 * Walks every configuration of the host's store, page by page in agency id
 * order, and re-seals under the primary key each secret that is plaintext or
 * sealed under another key. Each re-seal is a compare-and-set, so a rotation
 * running at the same time is never overwritten. Then the same for the
 * configuration's `v1a` private keys: the list is re-read and written back
 * re-sealed (with `setSigningKeys`, `updatedAt` kept) only while its stored
 * keys are still those listed; see `resealSigningKeys` for the one round trip
 * this cannot guard. Idempotent: a second run re-seals nothing.
 * @throws InvalidOptionError without `secretEncryption` or with a bad `pageSize`;
 *   SecretKeyUnavailableError, SecretUndecryptableError at the first secret that cannot be opened
 */
export async function reencryptSecrets(
  store: WebhookStore,
  cipher: SecretCipher,
  options: ReencryptSecretsOptions = {},
): Promise<ReencryptSecretsResult> {
  if (!cipher.encrypting) {
    throw new InvalidOptionError(
      '@svc/webhooks-core',
      'secretEncryption',
      'reencryptSecrets() seals secrets under secretEncryption.primaryKeyId: create the service with the secretEncryption option.',
    );
  }
  const pageSize = positiveIntegerOption('pageSize', options.pageSize, DEFAULT_PAGE_SIZE);
  const result: ReencryptSecretsResult = { examined: 0, reencrypted: 0, reencryptedSigningKeys: 0 };
  let after: string | null = null;
  for (;;) {
    const page = await store.listConfigs({ after, limit: pageSize });
    for (const config of page) {
      result.examined += 1;
      if (!cipher.isCurrent(config.signingSecret) && (await resealSecret(store, cipher, config))) {
        result.reencrypted += 1;
      }
      if (
        !signingKeysCurrent(cipher, config.signingKeys) &&
        (await resealSigningKeys(store, cipher, config))
      ) {
        result.reencryptedSigningKeys += 1;
      }
    }
    const last = page.at(-1);
    if (!last || page.length < pageSize) return result;
    after = last.agencyId;
  }
}
