import { describe, expect, it } from 'vitest';
import type { UpsertConfigInput, WebhookStore } from '../adapters/store';
import { BASE_TIME, makeDeliveryId } from './delivery-record-builder';

const FIRST = 'a'.repeat(64);
const ROTATED = 'b'.repeat(64);
/** A stored value need not be hex: the service stores sealed secrets (`enc:v1:…`) through the same call. */
const SEALED = `enc:v1:k1:${'Zm9v'.repeat(30)}`;

function configInput(agencyId = 'agency-a'): UpsertConfigInput {
  return {
    agencyId,
    webhookUrl: 'https://hooks.example.com/receive',
    enabled: true,
    subscribedEventTypes: ['job_created'],
    now: BASE_TIME,
    newId: makeDeliveryId(),
    newSigningSecret: FIRST,
  };
}

/**
 * The signing secret's compare-and-set (`setSigningSecret` with
 * `expectedSigningSecret`): how the service re-seals a stored secret under a
 * new key without ever overwriting a rotation that landed in between.
 */
export function describeSecretCases(store: () => WebhookStore): void {
  describe('signing secret compare-and-set', () => {
    it('replaces the secret and updatedAt while the stored secret equals the expected one', async () => {
      const { config } = await store().upsertConfig(configInput());
      const options = { expectedSigningSecret: FIRST };
      const saved = await store().setSigningSecret('agency-a', SEALED, BASE_TIME + 1_000, options);
      const expected = { ...config, signingSecret: SEALED, updatedAt: BASE_TIME + 1_000 };
      expect(saved).toEqual(expected);
      expect(await store().getConfig('agency-a'), 'read back').toEqual(expected);
    });

    it('returns null and changes nothing once the stored secret differs from the expected one', async () => {
      await store().upsertConfig(configInput());
      const rotated = await store().setSigningSecret('agency-a', ROTATED, BASE_TIME + 1_000);
      const stale = await store().setSigningSecret('agency-a', SEALED, BASE_TIME + 2_000, {
        expectedSigningSecret: FIRST,
      });
      expect(stale, 'a re-seal of the secret a rotation replaced').toBeNull();
      expect(await store().getConfig('agency-a'), 'the rotation stands').toEqual(rotated);
    });

    it('returns null and creates nothing when the agency has no configuration', async () => {
      const options = { expectedSigningSecret: FIRST };
      expect(await store().setSigningSecret('agency-a', SEALED, BASE_TIME, options)).toBeNull();
      expect(await store().getConfig('agency-a')).toBeNull();
    });

    it('compares the whole stored value: a prefix, a suffix or another case does not match', async () => {
      await store().upsertConfig(configInput());
      for (const near of [FIRST.slice(1), `${FIRST}a`, FIRST.toUpperCase(), '']) {
        const options = { expectedSigningSecret: near };
        expect(await store().setSigningSecret('agency-a', SEALED, BASE_TIME + 1, options), near).toBeNull();
      }
      expect((await store().getConfig('agency-a'))?.signingSecret).toBe(FIRST);
    });

    it('touches only the agency named: another agency with the same secret keeps it', async () => {
      await store().upsertConfig(configInput('agency-a'));
      const { config: other } = await store().upsertConfig(configInput('agency-b'));
      const options = { expectedSigningSecret: FIRST };
      await store().setSigningSecret('agency-a', SEALED, BASE_TIME + 1, options);
      expect(await store().getConfig('agency-b')).toEqual(other);
    });

    it('of concurrent writers expecting the same secret, exactly one wins; an unconditional rotation always does', async () => {
      await store().upsertConfig(configInput());
      const candidates = Array.from({ length: 8 }, (_, index) => `${String(index).repeat(64)}`);
      const results = await Promise.all(
        candidates.map((candidate) =>
          store().setSigningSecret('agency-a', candidate, BASE_TIME + 1, { expectedSigningSecret: FIRST }),
        ),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners, 'successful compare-and-sets').toHaveLength(1);
      expect((await store().getConfig('agency-a'))?.signingSecret).toBe(winners[0]?.signingSecret);
      const rotated = await store().setSigningSecret('agency-a', ROTATED, BASE_TIME + 2);
      expect(rotated?.signingSecret, 'without a precondition').toBe(ROTATED);
    });
  });
}
