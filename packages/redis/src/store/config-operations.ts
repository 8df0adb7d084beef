import type { UpsertConfigInput, WebhookConfigRecord, WebhookStore } from '@svc/webhooks-core';
import type { RedisClient } from '../connection/connection';
import { unexpectedReply } from '../errors';
import { configKey, type RedisStoreKeyNames } from '../key-names';
import type { RedisLink } from '../linked/redis-link';
import { configFields, decodeConfig } from './store-codec';
import { deleteConfigScript, setSecretScript, upsertConfigScript } from './store-scripts';

type ConfigOperations = Pick<
  WebhookStore,
  'getConfig' | 'upsertConfig' | 'setSigningSecret' | 'deleteConfig'
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
      const reply = await upsertConfigScript.run(
        client,
        [keyOf(input.agencyId)],
        [
          input.newId,
          input.agencyId,
          url,
          enabled,
          subscriptions,
          input.now,
          input.newSigningSecret,
          keys.configChannel,
        ],
      );
      written(input.agencyId);
      if (!Array.isArray(reply)) throw unexpectedReply('upsertConfig', reply);
      const [created, ...pairs] = reply as unknown[];
      return { config: decodeConfig(pairs), created: created === 1 };
    },

    async setSigningSecret(agencyId: string, signingSecret: string, now: number) {
      const reply = await setSecretScript.run(
        client,
        [keyOf(agencyId)],
        [signingSecret, now, keys.configChannel, agencyId],
      );
      written(agencyId);
      if (!Array.isArray(reply)) throw unexpectedReply('setSigningSecret', reply);
      return reply.length === 0 ? null : decodeConfig(reply);
    },

    async deleteConfig(agencyId: string): Promise<boolean> {
      const reply = await deleteConfigScript.run(client, [keyOf(agencyId)], [keys.configChannel, agencyId]);
      written(agencyId);
      return reply === 1;
    },
  };
}

async function readConfig(client: RedisClient, key: string): Promise<WebhookConfigRecord | null> {
  const pairs = await client.hgetall(key);
  return Object.keys(pairs).length === 0 ? null : decodeConfig(Object.entries(pairs).flat());
}
