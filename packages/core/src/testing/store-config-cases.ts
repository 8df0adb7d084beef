import { describe, expect, it } from 'vitest';
import type { UpsertConfigInput, WebhookStore } from '../adapters/store';
import { BASE_TIME, makeDeliveryId, makeDeliveryRecord } from './delivery-record-builder';

/** Configuration ids are opaque strings; UUIDs, as the service makes them, suit every backend. */
function configInput(overrides: Partial<UpsertConfigInput> = {}): UpsertConfigInput {
  return {
    agencyId: 'agency-a',
    webhookUrl: 'https://hooks.example.com/receive',
    enabled: true,
    subscribedEventTypes: ['job_created', 'quote_approved'],
    now: BASE_TIME,
    newId: makeDeliveryId(),
    newSigningSecret: 'a'.repeat(64),
    ...overrides,
  };
}

/** Configurations: create, update, rotation, deletion, one per agency. */
export function describeConfigCases(store: () => WebhookStore): void {
  describe('configurations', () => {
    it('getConfig returns null for an agency without a configuration', async () => {
      expect(await store().getConfig('agency-a')).toBeNull();
    });

    it('upsertConfig creates the configuration with newId and newSigningSecret (created: true)', async () => {
      const input = configInput();
      const result = await store().upsertConfig(input);
      const expected = {
        id: input.newId,
        agencyId: 'agency-a',
        webhookUrl: 'https://hooks.example.com/receive',
        signingSecret: 'a'.repeat(64),
        enabled: true,
        subscribedEventTypes: ['job_created', 'quote_approved'],
        createdAt: BASE_TIME,
        updatedAt: BASE_TIME,
        disabledAt: null,
        disabledReason: null,
        signatureScheme: 'service',
        signingKeys: [],
      };
      expect(result).toEqual({ config: expected, created: true });
      expect(await store().getConfig('agency-a'), 'getConfig after create').toEqual(expected);
      expect(await store().getConfig('agency-b'), 'another agency is unaffected').toBeNull();
    });

    it('upsertConfig on an existing configuration updates url, enabled, subscriptions and updatedAt only', async () => {
      const first = configInput();
      await store().upsertConfig(first);
      const result = await store().upsertConfig(
        configInput({
          webhookUrl: 'https://hooks.example.com/v2',
          enabled: false,
          subscribedEventTypes: [],
          now: BASE_TIME + 60_000,
          newId: makeDeliveryId(),
          newSigningSecret: 'b'.repeat(64),
        }),
      );
      const expected = {
        id: first.newId,
        agencyId: 'agency-a',
        webhookUrl: 'https://hooks.example.com/v2',
        signingSecret: 'a'.repeat(64),
        enabled: false,
        subscribedEventTypes: [],
        createdAt: BASE_TIME,
        updatedAt: BASE_TIME + 60_000,
        disabledAt: null,
        disabledReason: null,
        signatureScheme: 'service',
        signingKeys: [],
      };
      expect(result, 'an update keeps id, signingSecret and createdAt').toEqual({
        config: expected,
        created: false,
      });
      expect(await store().getConfig('agency-a')).toEqual(expected);
    });

    it('concurrent first upserts for one agency yield one configuration and exactly one created: true', async () => {
      const inputs = Array.from({ length: 10 }, (_, index) =>
        configInput({ newSigningSecret: String(index).repeat(64) }),
      );
      const results = await Promise.all(inputs.map((input) => store().upsertConfig(input)));
      const creators = results.filter((result) => result.created);
      expect(creators, 'number of upserts answering created: true').toHaveLength(1);
      const winner = creators[0]?.config;
      expect(new Set(results.map((result) => result.config.id)), 'ids returned to the 10 callers').toEqual(
        new Set([winner?.id]),
      );
      const stored = await store().getConfig('agency-a');
      expect(stored?.id).toBe(winner?.id);
      expect(stored?.signingSecret, 'the stored secret is the creator’s').toBe(winner?.signingSecret);
    });

    it('setSigningSecret replaces the secret and updatedAt, and keeps the rest', async () => {
      const { config } = await store().upsertConfig(configInput());
      const rotated = await store().setSigningSecret('agency-a', 'c'.repeat(64), BASE_TIME + 5_000);
      const expected = { ...config, signingSecret: 'c'.repeat(64), updatedAt: BASE_TIME + 5_000 };
      expect(rotated).toEqual(expected);
      expect(await store().getConfig('agency-a')).toEqual(expected);
    });

    it('setSigningSecret returns null and creates nothing when the agency has no configuration', async () => {
      expect(await store().setSigningSecret('agency-a', 'c'.repeat(64), BASE_TIME)).toBeNull();
      expect(await store().getConfig('agency-a')).toBeNull();
    });

    it('deleteConfig removes the configuration (true), then answers false; deliveries are kept', async () => {
      await store().upsertConfig(configInput());
      await store().upsertConfig(configInput({ agencyId: 'agency-b' }));
      const { delivery } = await store().insertDelivery(makeDeliveryRecord({ agencyId: 'agency-a' }));
      expect(await store().deleteConfig('agency-a')).toBe(true);
      expect(await store().getConfig('agency-a')).toBeNull();
      expect(await store().deleteConfig('agency-a'), 'second delete').toBe(false);
      expect(await store().getConfig('agency-b'), 'another agency’s configuration').not.toBeNull();
      expect(await store().getDelivery(delivery.id), 'the agency’s delivery').toEqual(delivery);
    });

    it('a configuration can be created again after deletion', async () => {
      await store().upsertConfig(configInput());
      await store().deleteConfig('agency-a');
      const newId = makeDeliveryId();
      const again = await store().upsertConfig(configInput({ newId, newSigningSecret: 'd'.repeat(64) }));
      expect(again.created).toBe(true);
      expect(again.config.id).toBe(newId);
      expect(again.config.signingSecret).toBe('d'.repeat(64));
    });

    it('configurations are copies: mutating an input or a result leaves the stored one unchanged', async () => {
      const input = configInput();
      const { config } = await store().upsertConfig(input);
      input.subscribedEventTypes.push('mutated_input');
      config.subscribedEventTypes.push('mutated_result');
      config.webhookUrl = 'https://mutated.example.com';
      const read = await store().getConfig('agency-a');
      read?.subscribedEventTypes.push('mutated_read');
      expect(await store().getConfig('agency-a')).toMatchObject({
        webhookUrl: 'https://hooks.example.com/receive',
        subscribedEventTypes: ['job_created', 'quote_approved'],
      });
    });
  });
}
