import { describe, expect, it } from 'vitest';
import type { UpsertConfigInput, WebhookStore } from '../adapters/store';
import type { WebhookConfigRecord } from '../config/config';
import { BASE_TIME } from './delivery-record-builder';

const REASON = 'auto_disabled_failing';

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

/** `disableConfig`: the compare-and-set auto-disable writes, and the upsert that clears it. */
export function describeConfigDisableCases(store: () => WebhookStore): void {
  describe('configuration disable', () => {
    it('a new configuration has disabledAt and disabledReason null', async () => {
      const { config } = await store().upsertConfig(configInput());
      expect(config).toMatchObject({ disabledAt: null, disabledReason: null });
      expect(await store().getConfig('agency-a')).toMatchObject({ disabledAt: null, disabledReason: null });
    });

    it('disableConfig with the stored updatedAt disables it, stamps the time and reason, and changes nothing else', async () => {
      const { config } = await store().upsertConfig(configInput());
      const now = BASE_TIME + 5_000;
      const disabled = await store().disableConfig('agency-a', {
        reason: REASON,
        now,
        expectedUpdatedAt: BASE_TIME,
      });
      const expected: WebhookConfigRecord = {
        ...config,
        enabled: false,
        disabledAt: now,
        disabledReason: REASON,
        updatedAt: now,
      };
      expect(disabled).toEqual(expected);
      expect(await store().getConfig('agency-a'), 'read back').toEqual(expected);
      expect((await store().listConfigs({ after: null, limit: 10 }))[0], 'listed').toEqual(expected);
    });

    it('refuses (null, nothing written) when updatedAt moved on, when already disabled, or when there is no configuration', async () => {
      await store().upsertConfig(configInput());
      await store().upsertConfig(configInput({ now: BASE_TIME + 1_000 }));
      const stale = { reason: REASON, now: BASE_TIME + 2_000, expectedUpdatedAt: BASE_TIME };
      expect(await store().disableConfig('agency-a', stale), 'a PUT landed since the read').toBeNull();
      expect(await store().getConfig('agency-a')).toMatchObject({ enabled: true, disabledAt: null });

      await store().upsertConfig(configInput({ enabled: false, now: BASE_TIME + 3_000 }));
      const byAgency = { reason: REASON, now: BASE_TIME + 4_000, expectedUpdatedAt: BASE_TIME + 3_000 };
      expect(await store().disableConfig('agency-a', byAgency), 'disabled by the agency').toBeNull();
      expect(await store().getConfig('agency-a')).toMatchObject({
        enabled: false,
        disabledAt: null,
        disabledReason: null,
        updatedAt: BASE_TIME + 3_000,
      });

      const none = { reason: REASON, now: BASE_TIME, expectedUpdatedAt: BASE_TIME };
      expect(await store().disableConfig('agency-b', none), 'no configuration').toBeNull();
      expect(await store().getConfig('agency-b')).toBeNull();
    });

    it('a second disable with the same expectation finds it disabled and returns null', async () => {
      await store().upsertConfig(configInput());
      const input = { reason: REASON, now: BASE_TIME + 1_000, expectedUpdatedAt: BASE_TIME };
      expect(await store().disableConfig('agency-a', input)).not.toBeNull();
      expect(await store().disableConfig('agency-a', input)).toBeNull();
    });

    it('of concurrent disables with the same expectation, exactly one wins', async () => {
      await store().upsertConfig(configInput());
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          store().disableConfig('agency-a', {
            reason: REASON,
            now: BASE_TIME + 1_000 + index,
            expectedUpdatedAt: BASE_TIME,
          }),
        ),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners, 'successful disables').toHaveLength(1);
      expect(await store().getConfig('agency-a')).toEqual(winners[0]);
    });

    it('the next upsert clears disabledAt and disabledReason, and sets enabled as given', async () => {
      await store().upsertConfig(configInput());
      await store().disableConfig('agency-a', {
        reason: REASON,
        now: BASE_TIME + 1_000,
        expectedUpdatedAt: BASE_TIME,
      });
      const { config, created } = await store().upsertConfig(configInput({ now: BASE_TIME + 2_000 }));
      expect(created).toBe(false);
      expect(config).toMatchObject({
        enabled: true,
        disabledAt: null,
        disabledReason: null,
        updatedAt: BASE_TIME + 2_000,
      });
      expect(await store().getConfig('agency-a')).toEqual(config);

      await store().disableConfig('agency-a', {
        reason: REASON,
        now: BASE_TIME + 3_000,
        expectedUpdatedAt: BASE_TIME + 2_000,
      });
      const keptOff = await store().upsertConfig(configInput({ enabled: false, now: BASE_TIME + 4_000 }));
      expect(keptOff.config, 'a PUT that keeps it off clears them too').toMatchObject({
        enabled: false,
        disabledAt: null,
        disabledReason: null,
      });
    });

    it('a secret rotation keeps the disable and moves updatedAt', async () => {
      await store().upsertConfig(configInput());
      await store().disableConfig('agency-a', {
        reason: REASON,
        now: BASE_TIME + 1_000,
        expectedUpdatedAt: BASE_TIME,
      });
      const rotated = await store().setSigningSecret('agency-a', 'b'.repeat(64), BASE_TIME + 2_000);
      expect(rotated).toMatchObject({
        enabled: false,
        disabledAt: BASE_TIME + 1_000,
        disabledReason: REASON,
        updatedAt: BASE_TIME + 2_000,
      });
    });
  });
}
