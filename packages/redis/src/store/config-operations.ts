import type {
  DisableConfigInput,
  ListConfigsOptions,
  SetSigningSecretOptions,
  SigningKeyRecord,
  UpsertConfigInput,
  WebhookConfigRecord,
  WebhookStore,
} from '@svc/webhooks-core';
import { redactSecrets, signingKeysJson } from '@svc/webhooks-core/adapter-kit';
import type { RedisClient } from '../connection/connection';
import { unexpectedReply } from '../errors';
import { configKey, type RedisStoreKeyNames } from '../key-names';
import type { RedisLink } from '../linked/redis-link';
import { createConfigIndexCheck } from './config-index';
import { configFields, decodeConfig, signatureFields } from './store-codec';
import {
  deleteConfigScript,
  disableConfigScript,
  listConfigsScript,
  setSecretScript,
  setSigningKeysScript,
  upsertConfigScript,
} from './store-scripts';

type ConfigOperations = Pick<
  WebhookStore,
  | 'getConfig'
  | 'upsertConfig'
  | 'setSigningSecret'
  | 'setSigningKeys'
  | 'listConfigs'
  | 'disableConfig'
  | 'deleteConfig'
>;

/**
 * The store's configuration operations. Every write publishes the agency id on
 * the store's configuration channel (in its script), whoever makes it, so that
 * linked stores in every process drop their cached copy. A linked store reads
 * through its claim snapshots first, then its cache (see linked/config-cache.ts).
 */
export function createConfigOperations(
  client: RedisClient,
  keys: RedisStoreKeyNames,
  link?: RedisLink,
): ConfigOperations {
  const keyOf = (agencyId: string): string => configKey(keys.base, agencyId);
  const written = (agencyId: string): void => link?.configs.invalidate(agencyId);
  const ensureIndexed = createConfigIndexCheck(client, keys);

  return {
    async getConfig(agencyId: string): Promise<WebhookConfigRecord | null> {
      const snapshot = link?.snapshots.takeConfig(agencyId);
      if (snapshot) return decodeConfig(snapshot);
      if (!link) return readConfig(client, keyOf(agencyId));
      // A process that only emits never waits for work: the cache needs the subscription all the same.
      link.subscription.open();
      const cached = link.configs.get(agencyId);
      if (cached !== undefined) return cached;
      const ticket = link.configs.ticket(agencyId);
      const config = await readConfig(client, keyOf(agencyId));
      link.configs.fill(agencyId, config, ticket);
      return config;
    },

    async upsertConfig(input: UpsertConfigInput): Promise<{ config: WebhookConfigRecord; created: boolean }> {
      const [url, enabled, subscriptions] = configFields(input);
      const [scheme, signingKeys] = signatureFields(input);
      const reply = await writingSecret(
        [input.newSigningSecret, ...privateKeys(input.signingKeys)],
        upsertConfigScript.run(
          client,
          [keyOf(input.agencyId), keys.configs],
          [
            input.newId,
            input.agencyId,
            url,
            enabled,
            subscriptions,
            input.now,
            input.newSigningSecret,
            keys.configChannel,
            scheme,
            signingKeys,
          ],
        ),
      );
      written(input.agencyId);
      if (!Array.isArray(reply)) throw unexpectedReply('upsertConfig', reply);
      const [created, ...pairs] = reply as unknown[];
      return { config: decodeConfig(pairs), created: created === 1 };
    },

    async setSigningSecret(
      agencyId: string,
      signingSecret: string,
      now: number,
      options?: SetSigningSecretOptions,
    ) {
      const expected = options?.expectedSigningSecret;
      const reply = await writingSecret(
        [signingSecret, expected],
        setSecretScript.run(
          client,
          [keyOf(agencyId)],
          [
            signingSecret,
            now,
            keys.configChannel,
            agencyId,
            expected === undefined ? '0' : '1',
            expected ?? '',
          ],
        ),
      );
      written(agencyId);
      if (!Array.isArray(reply)) throw unexpectedReply('setSigningSecret', reply);
      return reply.length === 0 ? null : decodeConfig(reply);
    },

    async setSigningKeys(
      agencyId: string,
      signingKeys: SigningKeyRecord[],
      now: number,
    ): Promise<WebhookConfigRecord | null> {
      const reply = await writingSecret(
        privateKeys(signingKeys),
        setSigningKeysScript.run(
          client,
          [keyOf(agencyId)],
          [signingKeysJson(signingKeys), now, keys.configChannel, agencyId],
        ),
      );
      written(agencyId);
      if (!Array.isArray(reply)) throw unexpectedReply('setSigningKeys', reply);
      return reply.length === 0 ? null : decodeConfig(reply);
    },

    async listConfigs({ after, limit }: ListConfigsOptions): Promise<WebhookConfigRecord[]> {
      await ensureIndexed();
      const min = after === null ? '-' : `(${after}`;
      const reply = await listConfigsScript.run(client, [keys.configs], [keys.base, min, limit]);
      if (!Array.isArray(reply)) throw unexpectedReply('listConfigs', reply);
      return reply.map((pairs) => decodeConfig(pairs as unknown[]));
    },

    async disableConfig(agencyId: string, input: DisableConfigInput): Promise<WebhookConfigRecord | null> {
      const reply = await disableConfigScript.run(
        client,
        [keyOf(agencyId)],
        [input.reason, input.now, input.expectedUpdatedAt, keys.configChannel, agencyId],
      );
      written(agencyId);
      if (!Array.isArray(reply)) throw unexpectedReply('disableConfig', reply);
      return reply.length === 0 ? null : decodeConfig(reply);
    },

    async deleteConfig(agencyId: string): Promise<boolean> {
      const reply = await deleteConfigScript.run(
        client,
        [keyOf(agencyId), keys.configs],
        [keys.configChannel, agencyId],
      );
      written(agencyId);
      return reply === 1;
    },
  };
}

async function readConfig(client: RedisClient, key: string): Promise<WebhookConfigRecord | null> {
  const pairs = await client.hgetall(key);
  return Object.keys(pairs).length === 0 ? null : decodeConfig(Object.entries(pairs).flat());
}

/** The private keys a key write carries, for redaction from what it throws. */
function privateKeys(keys: readonly SigningKeyRecord[] | undefined): string[] {
  return keys?.map((key) => key.privateKey) ?? [];
}

/**
 * Awaits a script that carries a signing secret or private signing keys.
 * ioredis puts a failed command's arguments on the error (`command.args`; for
 * a transaction or a cluster also on `previousErrors` and `lastNodeError`), and
 * a structured logger serialises them: what reaches the caller has the secret redacted,
 * and is otherwise the error ioredis made (class, message, cause chain).
 */
async function writingSecret<T>(secrets: ReadonlyArray<string | undefined>, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    throw redactSecrets(error, secrets);
  }
}
