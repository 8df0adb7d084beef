import { maskSigningSecret, type WebhookService, type WebhookStore } from '@svc/webhooks-core';
import { describe, expect, it } from 'vitest';
import { openSealedSecret } from './sealed-secrets';
import { onlyKey, type SecretsAtRestContext, writeLegacyConfig } from './secrets-at-rest-context';

const WEBHOOK_URL = 'https://hooks.test/receive';

/** The store with `after` run on `method`'s result before it answers: a race placed exactly where a test wants it. */
function withHook<K extends 'upsertConfig' | 'listConfigs'>(
  store: WebhookStore,
  method: K,
  after: (result: Awaited<ReturnType<WebhookStore[K]>>) => Promise<void>,
): WebhookStore {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (property === method) {
        return async (...args: unknown[]) => {
          const result = await (target[method] as (...a: unknown[]) => Promise<never>)(...args);
          await after(result);
          return result;
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Creates configurations through `webhooks`; resolves with each agency's secret. */
async function createConfigs(
  webhooks: WebhookService,
  agencyIds: readonly string[],
): Promise<Map<string, string>> {
  const secrets = new Map<string, string>();
  for (const agencyId of agencyIds) {
    const body = { webhookUrl: WEBHOOK_URL, enabled: true, subscribedEventTypes: ['job_cancelled'] };
    secrets.set(agencyId, (await webhooks.putConfig(agencyId, body)).signingSecret);
  }
  return secrets;
}

/** `reencryptSecrets`, key rotation, and re-seals racing rotations. */
export function describeSecretMaintenanceCases(context: SecretsAtRestContext): void {
  const { keys } = context;
  const bothKeys = (primaryKeyId: 'k1' | 'k2') => ({ keys: { k1: keys.k1, k2: keys.k2 }, primaryKeyId });

  describe('reencryptSecrets and re-seals', () => {
    it('moves every secret, legacy ones included, to a new primary key; then the old key can go', async () => {
      const agencyIds = ['agency-1', 'agency-2', 'agency-3', 'agency-4', 'agency-5'];
      const secrets = await createConfigs(context.service(onlyKey(keys, 'k1')), agencyIds);
      secrets.set('agency-0', await writeLegacyConfig(context.fixture().store, 'agency-0', WEBHOOK_URL));

      const rotating = context.service(bothKeys('k2'));
      expect(await rotating.reencryptSecrets({ pageSize: 2 })).toEqual({
        examined: 6,
        reencrypted: 6,
        reencryptedSigningKeys: 0,
      });
      expect(await rotating.reencryptSecrets(), 'a second run').toEqual({
        examined: 6,
        reencrypted: 0,
        reencryptedSigningKeys: 0,
      });

      const dump = await context.fixture().dump();
      expect(dump).not.toContain('enc:v1:k1:');
      for (const secret of secrets.values()) expect(dump).not.toContain(secret);
      const withoutOldKey = context.service(onlyKey(keys, 'k2'));
      for (const [agencyId, secret] of secrets) {
        const stored = (await context.fixture().store.getConfig(agencyId))?.signingSecret ?? '';
        expect(openSealedSecret(keys.k2, agencyId, stored), agencyId).toBe(secret);
        expect((await withoutOldKey.getConfig(agencyId)).signingSecret).toBe(maskSigningSecret(secret));
      }
    });

    it('refuses without secretEncryption, and stops at a secret it cannot open, naming its key', async () => {
      await createConfigs(context.service(onlyKey(keys, 'k1')), ['agency-1']);
      await expect(context.service().reencryptSecrets()).rejects.toMatchObject({
        code: 'invalid_option',
        option: 'secretEncryption',
      });
      await expect(context.service(onlyKey(keys, 'k2')).reencryptSecrets()).rejects.toMatchObject({
        code: 'secret_key_unavailable',
        keyId: 'k1',
        agencyId: 'agency-1',
      });
    });

    it('a PUT’s re-seal never overwrites a rotation that lands between its read and its write', async () => {
      const legacy = await writeLegacyConfig(context.fixture().store, 'agency-r', WEBHOOK_URL);
      const rotator = context.service(onlyKey(keys, 'k1'));
      let rotated = '';
      const racing = withHook(context.fixture().store, 'upsertConfig', async () => {
        rotated = (await rotator.rotateSecret('agency-r')).signingSecret;
      });
      const body = { webhookUrl: WEBHOOK_URL, enabled: false, subscribedEventTypes: [] };
      await context.service(onlyKey(keys, 'k1'), { store: racing }).putConfig('agency-r', body);
      const stored = await context.fixture().store.getConfig('agency-r');
      expect(openSealedSecret(keys.k1, 'agency-r', stored?.signingSecret ?? '')).toBe(rotated);
      expect(rotated).not.toBe(legacy);
      expect(stored?.enabled, 'the PUT itself was written').toBe(false);
    });

    it('reencryptSecrets never overwrites a rotation: placed between its read and write, and at random', async () => {
      const agencyIds = Array.from({ length: 12 }, (_, index) => `agency-${String(index).padStart(2, '0')}`);
      await createConfigs(context.service(onlyKey(keys, 'k1')), agencyIds);
      const rotator = context.service(bothKeys('k2'));
      const latest = new Map<string, string>();
      const rotate = async (agencyId: string) => {
        latest.set(agencyId, (await rotator.rotateSecret(agencyId)).signingSecret);
      };
      // Each page's first agency is rotated after the page was read, before its re-seal.
      const racing = withHook(context.fixture().store, 'listConfigs', async (page) => {
        if (page[0]) await rotate(page[0].agencyId);
      });
      const result = await context
        .service(bothKeys('k2'), { store: racing })
        .reencryptSecrets({ pageSize: 5 });
      expect(result).toEqual({ examined: 12, reencrypted: 9, reencryptedSigningKeys: 0 });

      await createConfigs(
        context.service(onlyKey(keys, 'k1')),
        agencyIds.map((id) => `${id}-b`),
      );
      const walk = context.service(bothKeys('k2')).reencryptSecrets({ pageSize: 3 });
      await Promise.all([walk, ...agencyIds.map((id) => rotate(`${id}-b`))]);
      for (const [agencyId, secret] of latest) {
        const stored = (await context.fixture().store.getConfig(agencyId))?.signingSecret ?? '';
        expect(openSealedSecret(keys.k2, agencyId, stored), agencyId).toBe(secret);
      }
    });
  });
}
