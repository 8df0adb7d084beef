import type { WebhookService } from '@svc/webhooks-core';
import { publicKeyOf } from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';
import { openSealedSecret } from './sealed-secrets';
import { onlyKey, type SecretsAtRestContext } from './secrets-at-rest-context';
import { jobCancelled } from './service-harness';
import { asymmetricSignersOf } from './standard-webhooks';

const STANDARD_KEYS = { signatureScheme: 'standard', asymmetricSignatures: true } as const;

/** Turns `v1a` signatures on for the agency, pointed at `webhookUrl`. */
function signWithKeys(webhooks: WebhookService, agencyId: string, webhookUrl: string) {
  return webhooks.putConfig(agencyId, {
    webhookUrl,
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
    ...STANDARD_KEYS,
  });
}

/** The `v1a` private keys (`signingKeys[].privateKey`): sealed like the secret, opened to sign. */
export function describeSecretSigningKeyCases(context: SecretsAtRestContext): void {
  const { keys } = context;

  describe('v1a private keys', () => {
    it('with keys, the backend holds no whsk_ private key, and every live key still signs', async () => {
      const harness = await context.harness(onlyKey(keys, 'k1'));
      await signWithKeys(harness.webhooks, 'agency-a', harness.receiver.urlFor('/a'));
      await harness.webhooks.rotateSigningKey('agency-a');
      const jwks = await harness.webhooks.getPublicKeys('agency-a');
      const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
      await harness.waitForStatus('agency-a', emitted?.deliveryId as string, 'success');

      const [request] = harness.receiver.requests;
      expect(asymmetricSignersOf(request!, jwks.keys), 'active, then retiring').toEqual(
        jwks.keys.map((key) => key.kid),
      );
      expect(await context.fixture().dump(), 'the backend’s data').not.toContain('whsk_');
      const stored = (await context.fixture().store.getConfig('agency-a'))?.signingKeys ?? [];
      expect(stored).toHaveLength(2);
      for (const key of stored) {
        expect(key.privateKey).toMatch(/^enc:v1:k1:[A-Za-z0-9_-]+$/);
        const opened = openSealedSecret(keys.k1, 'agency-a', key.privateKey);
        expect(opened, 'opened as documented').toMatch(/^whsk_/);
        expect(publicKeyOf(opened), 'the pair of the published key').toBe(key.publicKey);
      }
    });

    it('reencryptSecrets re-seals the private keys under the new primary, once', async () => {
      const first = context.service(onlyKey(keys, 'k1'));
      await signWithKeys(first, 'agency-a', 'https://hooks.test/receive');
      await first.rotateSigningKey('agency-a');
      const before = (await context.fixture().store.getConfig('agency-a'))?.signingKeys ?? [];
      const rotating = context.service({ keys: { k1: keys.k1, k2: keys.k2 }, primaryKeyId: 'k2' });
      expect(await rotating.reencryptSecrets()).toEqual({
        examined: 1,
        reencrypted: 1,
        reencryptedSigningKeys: 1,
      });
      expect(await rotating.reencryptSecrets(), 'a second run').toEqual({
        examined: 1,
        reencrypted: 0,
        reencryptedSigningKeys: 0,
      });
      const after = (await context.fixture().store.getConfig('agency-a'))?.signingKeys ?? [];
      expect(after.map(({ privateKey: _sealed, ...key }) => key)).toEqual(
        before.map(({ privateKey: _sealed, ...key }) => key),
      );
      for (const [index, key] of after.entries()) {
        const old = openSealedSecret(keys.k1, 'agency-a', before[index]?.privateKey ?? '');
        expect(openSealedSecret(keys.k2, 'agency-a', key.privateKey)).toBe(old);
      }
      expect(await context.fixture().dump()).not.toContain('enc:v1:k1:');
      const withoutOldKey = context.service(onlyKey(keys, 'k2'));
      expect((await withoutOldKey.rotateSigningKey('agency-a')).signingPublicKeys).toHaveLength(3);
    });
  });
}
