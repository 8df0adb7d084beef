import type {
  ListConfigsOptions,
  SetSigningSecretOptions,
  UpsertConfigInput,
  WebhookStore,
} from '../adapters/store';
import type { SigningKeyRecord, WebhookConfigRecord } from '../config/config';
import { isSealedSecret, type SecretCipher } from '../config/secret-encryption';
import { redactSecrets } from '../config/secret-redaction';
import { privateKeysOf, sealSigningKeys, withOpenedSigningKeys } from './sealed-signing-keys';

/**
 * The store the service and its workers use: the host's store, with signing
 * secrets and the `v1a` private keys (`signingKeys[].privateKey`) sealed on
 * the way in and opened on the way out (each on its first read), so every adapter
 * (memory, PostgreSQL, Redis, the host's own) holds only what the cipher
 * writes and none of them needs to know about keys. Everything else is passed
 * through unchanged.
 *
 * Writing a configuration whose stored secret is legacy plaintext, or sealed
 * under a key that is no longer the primary, re-seals it under the primary
 * (a compare-and-set, so a rotation that lands in between wins). Errors of a
 * write that carried a secret reach the caller with it redacted, whatever
 * the adapter attached.
 */
export function sealSecretsAtRest(store: WebhookStore, cipher: SecretCipher): WebhookStore {
  const opened = (raw: WebhookConfigRecord): WebhookConfigRecord => withOpenedSecret(raw, cipher);
  const sealed: WebhookStore = {
    capabilities: store.capabilities,
    getConfig: async (agencyId) => {
      const raw = await store.getConfig(agencyId);
      return raw && opened(raw);
    },
    upsertConfig: (input) => upsertSealed(store, cipher, input),
    setSigningSecret: (agencyId, secret, now, options) =>
      setSealed(store, cipher, { agencyId, secret, now, expected: options?.expectedSigningSecret }),
    setSigningKeys: (agencyId, keys, now) => setKeysSealed(store, cipher, { agencyId, keys, now }),
    listConfigs: async (options: ListConfigsOptions) => (await store.listConfigs(options)).map(opened),
    disableConfig: async (agencyId, input) => {
      const raw = await store.disableConfig(agencyId, input);
      return raw && opened(raw);
    },
    deleteConfig: (agencyId) => store.deleteConfig(agencyId),
    insertDelivery: (record, options) => store.insertDelivery(record, options),
    getDelivery: (deliveryId) => store.getDelivery(deliveryId),
    listDeliveries: (agencyId, options) => store.listDeliveries(agencyId, options),
    updateDelivery: (deliveryId, expected, update) => store.updateDelivery(deliveryId, expected, update),
    listAttempts: (deliveryId) => store.listAttempts(deliveryId),
    listDuePending: (dueBefore, limit) => store.listDuePending(dueBefore, limit),
    getCircuit: (agencyId) => store.getCircuit(agencyId),
    saveCircuit: (agencyId, expectedVersion, state) => store.saveCircuit(agencyId, expectedVersion, state),
    createRecovery: (record) => store.createRecovery(record),
    getRecovery: (recoveryId) => store.getRecovery(recoveryId),
    updateRecovery: (recoveryId, expectedVersion, update) =>
      store.updateRecovery(recoveryId, expectedVersion, update),
    listRunningRecoveries: (limit) => store.listRunningRecoveries(limit),
    listRecoveries: (agencyId, options) => store.listRecoveries(agencyId, options),
  };
  const { countDeliveries, replayRecoveryPage, purgeDeliveries, purgeRecoveries, close } = store;
  // Forwarded only when present: core falls back to paging for a store without it.
  if (countDeliveries)
    sealed.countDeliveries = (agencyId, filter) => countDeliveries.call(store, agencyId, filter);
  if (replayRecoveryPage)
    sealed.replayRecoveryPage = (recovery, page) => replayRecoveryPage.call(store, recovery, page);
  if (purgeDeliveries) sealed.purgeDeliveries = (options) => purgeDeliveries.call(store, options);
  if (purgeRecoveries) sealed.purgeRecoveries = (options) => purgeRecoveries.call(store, options);
  if (close) sealed.close = () => close.call(store);
  return sealed;
}

/**
 * Re-seals a configuration's stored secret under the primary key, unless the
 * stored value changed since `raw` was read. Returns the configuration as
 * stored now (secret still sealed), or null when a rotation or a deletion got
 * there first: that write is newer, and it wins.
 * @throws SecretKeyUnavailableError, SecretUndecryptableError when the stored secret cannot be opened
 */
export async function resealSecret(
  store: WebhookStore,
  cipher: SecretCipher,
  raw: WebhookConfigRecord,
): Promise<WebhookConfigRecord | null> {
  const secret = cipher.open(raw.agencyId, raw.signingSecret);
  const stored = cipher.seal(raw.agencyId, secret);
  // `updatedAt` stays: re-sealing changes nothing the agency configured.
  const write = store.setSigningSecret(raw.agencyId, stored, raw.updatedAt, {
    expectedSigningSecret: raw.signingSecret,
  });
  return withoutSecrets(write, [secret, stored, raw.signingSecret]);
}

async function upsertSealed(
  store: WebhookStore,
  cipher: SecretCipher,
  input: UpsertConfigInput,
): Promise<{ config: WebhookConfigRecord; created: boolean }> {
  const newSigningSecret = cipher.seal(input.agencyId, input.newSigningSecret);
  const sealedKeys = input.signingKeys && sealSigningKeys(cipher, input.agencyId, input.signingKeys);
  const write = store.upsertConfig({
    ...input,
    newSigningSecret,
    ...(sealedKeys ? { signingKeys: sealedKeys } : {}),
  });
  const { config, created } = await withoutSecrets(write, [
    input.newSigningSecret,
    newSigningSecret,
    ...privateKeysOf(input.signingKeys),
    ...privateKeysOf(sealedKeys),
  ]);
  // The keys given were stored: no need to decrypt what was just encrypted.
  const signingKeys =
    input.signingKeys?.map((key) => ({ ...key })) ??
    withOpenedSigningKeys(cipher, config.agencyId, config.signingKeys);
  // The creator stored the secret it was given, likewise.
  if (created) return { config: { ...config, signingSecret: input.newSigningSecret, signingKeys }, created };
  if (cipher.isCurrent(config.signingSecret)) {
    return { config: withOpenedSecret(config, cipher, signingKeys), created };
  }
  // Opened eagerly: a secret that cannot be opened fails this write's answer as it fails every read.
  const secret = cipher.open(config.agencyId, config.signingSecret);
  const resealed = await resealSecret(store, cipher, config);
  return { config: { ...(resealed ?? config), signingSecret: secret, signingKeys }, created };
}

async function setKeysSealed(
  store: WebhookStore,
  cipher: SecretCipher,
  call: { agencyId: string; keys: SigningKeyRecord[]; now: number },
): Promise<WebhookConfigRecord | null> {
  const { agencyId, keys, now } = call;
  const sealedKeys = sealSigningKeys(cipher, agencyId, keys);
  const write = store.setSigningKeys(agencyId, sealedKeys, now);
  const updated = await withoutSecrets(write, [...privateKeysOf(keys), ...privateKeysOf(sealedKeys)]);
  return (
    updated &&
    withOpenedSecret(
      updated,
      cipher,
      keys.map((key) => ({ ...key })),
    )
  );
}

async function setSealed(
  store: WebhookStore,
  cipher: SecretCipher,
  call: { agencyId: string; secret: string; now: number; expected: string | undefined },
): Promise<WebhookConfigRecord | null> {
  const { agencyId, secret, now } = call;
  const stored = cipher.seal(agencyId, secret);
  let options: SetSigningSecretOptions | undefined;
  if (call.expected !== undefined) {
    // Callers compare opened secrets; the backend compares stored values, which differ on
    // every seal (a fresh IV). So the stored value is read and checked here, then given to
    // the backend's compare-and-set: a stale read can only make it fail, never overwrite.
    const raw = await store.getConfig(agencyId);
    if (!raw || cipher.open(agencyId, raw.signingSecret) !== call.expected) return null;
    options = { expectedSigningSecret: raw.signingSecret };
  }
  const write = options
    ? store.setSigningSecret(agencyId, stored, now, options)
    : store.setSigningSecret(agencyId, stored, now);
  const updated = await withoutSecrets(write, [
    secret,
    stored,
    call.expected,
    options?.expectedSigningSecret,
  ]);
  return (
    updated && {
      ...updated,
      signingSecret: secret,
      signingKeys: withOpenedSigningKeys(cipher, agencyId, updated.signingKeys),
    }
  );
}

/**
 * The record with its secret opened on the first read of `signingSecret`, and
 * each signing key's private key on the first read of its `privateKey`.
 * Lazily, because `emit` reads a configuration only for `enabled` and the
 * subscriptions: with a key missing, deliveries are still stored (and sent
 * once the key is back) rather than the host's emit, and its transaction,
 * failing. Reading the secret throws the cipher's typed error.
 */
function withOpenedSecret(
  raw: WebhookConfigRecord,
  cipher: SecretCipher,
  signingKeys = withOpenedSigningKeys(cipher, raw.agencyId, raw.signingKeys),
): WebhookConfigRecord {
  const withKeys = { ...raw, signingKeys };
  if (!isSealedSecret(raw.signingSecret)) return withKeys;
  const { signingSecret: stored, ...fields } = withKeys;
  let secret: string | undefined;
  return Object.defineProperty(fields, 'signingSecret', {
    enumerable: true,
    configurable: true,
    get: () => {
      secret ??= cipher.open(raw.agencyId, stored);
      return secret;
    },
    set: (value: string) => {
      secret = value;
    },
  }) as WebhookConfigRecord;
}

async function withoutSecrets<T>(write: Promise<T>, secrets: ReadonlyArray<string | undefined>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    throw redactSecrets(error, secrets);
  }
}
