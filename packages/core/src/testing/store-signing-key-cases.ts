import { describe, expect, it } from 'vitest';
import type { UpsertConfigInput, WebhookStore } from '../adapters/store';
import type { SigningKeyRecord, WebhookConfigRecord } from '../config/config';
import { BASE_TIME } from './delivery-record-builder';

function configInput(overrides: Partial<UpsertConfigInput> = {}): UpsertConfigInput {
  return {
    agencyId: 'agency-a',
    webhookUrl: 'https://hooks.example.com/receive',
    enabled: true,
    subscribedEventTypes: ['job_created'],
    now: BASE_TIME,
    newId: 'cfg-a',
    newSigningSecret: 'a'.repeat(64),
    ...overrides,
  };
}

/**
 * A key as a store sees it. The strings need not be real keys (a store keeps them
 * verbatim); they have the real forms' lengths and characters, `+`, `/` and `=` included.
 */
function signingKey(n: number, expiresAt: number | null): SigningKeyRecord {
  const base64 = (fill: string) => `${fill.repeat(40)}+/${n}=`;
  return {
    kid: `whkey_0190a1b2-c3d4-7e5f-8a6b-${String(n).padStart(12, '0')}`,
    privateKey: `whsk_${base64('Q')}`,
    publicKey: `whpk_${base64('R')}`,
    createdAt: BASE_TIME + n,
    expiresAt,
  };
}

/** Reads the configuration back every way a store hands it out. */
async function readBack(
  store: WebhookStore,
  agencyId = 'agency-a',
): Promise<Array<WebhookConfigRecord | null>> {
  const listed = await store.listConfigs({ after: null, limit: 100 });
  return [await store.getConfig(agencyId), listed.find((config) => config.agencyId === agencyId) ?? null];
}

/**
 * `signatureScheme` and `signingKeys`: the defaults of a create, what an upsert keeps and
 * replaces, and `setSigningKeys`, which replaces the key list without re-enabling anything.
 */
export function describeSigningKeyCases(store: () => WebhookStore): void {
  describe('configuration signature scheme and signing keys', () => {
    it("a create without them stores signatureScheme 'service' and no keys", async () => {
      const { config } = await store().upsertConfig(configInput());
      expect(config).toMatchObject({ signatureScheme: 'service', signingKeys: [] });
      for (const read of await readBack(store())) {
        expect(read).toMatchObject({ signatureScheme: 'service', signingKeys: [] });
      }
    });

    it('a create with them stores both, every key field verbatim and in order', async () => {
      const keys = [signingKey(1, null), signingKey(2, BASE_TIME + 86_400_000)];
      const { config } = await store().upsertConfig(
        configInput({ signatureScheme: 'both', signingKeys: keys }),
      );
      expect(config.signatureScheme).toBe('both');
      expect(config.signingKeys).toEqual(keys);
      for (const read of await readBack(store())) {
        expect(read?.signatureScheme).toBe('both');
        expect(read?.signingKeys).toEqual(keys);
        // What a JSON column or a hash field gives back: plain data, no extra fields, numbers as numbers.
        expect(JSON.parse(JSON.stringify(read?.signingKeys))).toEqual(keys);
      }
    });

    it('an update without them keeps the stored scheme and keys', async () => {
      const keys = [signingKey(1, null)];
      await store().upsertConfig(configInput({ signatureScheme: 'standard', signingKeys: keys }));
      const { config, created } = await store().upsertConfig(
        configInput({ webhookUrl: 'https://hooks.example.com/other', now: BASE_TIME + 1_000 }),
      );
      expect(created).toBe(false);
      expect(config).toMatchObject({
        signatureScheme: 'standard',
        signingKeys: keys,
        updatedAt: BASE_TIME + 1_000,
      });
      for (const read of await readBack(store())) {
        expect(read).toMatchObject({ signatureScheme: 'standard', signingKeys: keys });
      }
    });

    it('an update with them replaces the scheme and the whole key list ([] empties it)', async () => {
      await store().upsertConfig(
        configInput({ signatureScheme: 'both', signingKeys: [signingKey(1, null)] }),
      );
      const replaced = [signingKey(3, null), signingKey(4, BASE_TIME + 5_000)];
      const { config } = await store().upsertConfig(
        configInput({ signatureScheme: 'standard', signingKeys: replaced, now: BASE_TIME + 1_000 }),
      );
      expect(config).toMatchObject({ signatureScheme: 'standard', signingKeys: replaced });
      expect(await store().getConfig('agency-a')).toMatchObject({
        signatureScheme: 'standard',
        signingKeys: replaced,
      });

      await store().upsertConfig(
        configInput({ signatureScheme: 'service', signingKeys: [], now: BASE_TIME + 2_000 }),
      );
      for (const read of await readBack(store())) {
        expect(read).toMatchObject({ signatureScheme: 'service', signingKeys: [] });
      }
    });

    it('setSigningKeys replaces the list and updatedAt, and changes nothing else', async () => {
      const { config } = await store().upsertConfig(
        configInput({ signatureScheme: 'both', signingKeys: [signingKey(1, null)] }),
      );
      const keys = [signingKey(2, null), signingKey(1, BASE_TIME + 9_000)];
      const now = BASE_TIME + 3_000;
      const expected: WebhookConfigRecord = { ...config, signingKeys: keys, updatedAt: now };
      expect(await store().setSigningKeys('agency-a', keys, now)).toEqual(expected);
      for (const read of await readBack(store())) expect(read).toEqual(expected);

      expect(await store().setSigningKeys('agency-a', [], now + 1), 'emptied').toMatchObject({
        signingKeys: [],
        updatedAt: now + 1,
      });
      expect(await store().getConfig('agency-a')).toMatchObject({ signingKeys: [], signatureScheme: 'both' });
    });

    it('setSigningKeys keeps a disabled configuration disabled, with its disabledAt and disabledReason', async () => {
      await store().upsertConfig(
        configInput({ signatureScheme: 'standard', signingKeys: [signingKey(1, null)] }),
      );
      const input = { reason: 'receiver_gone', now: BASE_TIME + 1_000, expectedUpdatedAt: BASE_TIME };
      expect(await store().disableConfig('agency-a', input)).not.toBeNull();
      const updated = await store().setSigningKeys('agency-a', [signingKey(2, null)], BASE_TIME + 2_000);
      const disabled = { enabled: false, disabledAt: BASE_TIME + 1_000, disabledReason: 'receiver_gone' };
      expect(updated).toMatchObject({ ...disabled, updatedAt: BASE_TIME + 2_000 });
      expect(await store().getConfig('agency-a')).toMatchObject(disabled);
    });

    it('setSigningKeys returns null and creates nothing for an agency without a configuration', async () => {
      expect(await store().setSigningKeys('agency-b', [signingKey(1, null)], BASE_TIME)).toBeNull();
      expect(await store().getConfig('agency-b')).toBeNull();
    });

    it('setSigningKeys writes one agency only', async () => {
      await store().upsertConfig(configInput());
      const other = [signingKey(5, null)];
      await store().upsertConfig(configInput({ agencyId: 'agency-b', newId: 'cfg-b', signingKeys: other }));
      await store().setSigningKeys('agency-a', [signingKey(6, null)], BASE_TIME + 1_000);
      expect(await store().getConfig('agency-b')).toMatchObject({ signingKeys: other, updatedAt: BASE_TIME });
    });
  });
}
