import { maskSigningSecret, SecretKeyUnavailableError, SecretUndecryptableError } from '@svc/webhooks-core';
import { describe, expect, it } from 'vitest';
import { everythingIn, openSealedSecret } from './sealed-secrets';
import {
  expectDeliveredWith,
  onlyKey,
  type SecretsAtRestContext,
  writeLegacyConfig,
} from './secrets-at-rest-context';
import { jobCancelled } from './service-harness';

/** Secrets sealed on write, opened for signing, legacy plaintext, and keys that are missing or wrong. */
export function describeSecretKeyCases(context: SecretsAtRestContext): void {
  const { keys } = context;

  describe('sealing and opening', () => {
    it('with keys, the backend holds no plaintext secret, and deliveries verify with the secrets', async () => {
      const harness = await context.harness(onlyKey(keys, 'k1'));
      const secretA = await harness.configure('agency-a', ['job_cancelled'], '/a');
      const secretB = await harness.configure('agency-b', ['job_cancelled'], '/b');
      const { signingSecret: rotated } = await harness.webhooks.rotateSecret('agency-b');
      await expectDeliveredWith(harness, 'agency-a', secretA);
      await expectDeliveredWith(harness, 'agency-b', rotated);

      const dump = await context.fixture().dump();
      for (const secret of [secretA, secretB, rotated])
        expect(dump, 'the backend’s data').not.toContain(secret);
      expect(dump).toContain('enc:v1:k1:');
      const stored = await context.fixture().store.getConfig('agency-a');
      expect(stored?.signingSecret, 'the stored value').toMatch(/^enc:v1:k1:[A-Za-z0-9_-]+$/);
      expect(openSealedSecret(keys.k1, 'agency-a', stored?.signingSecret ?? ''), 'opened as documented').toBe(
        secretA,
      );
      expect((await harness.webhooks.getConfig('agency-b')).signingSecret).toBe(maskSigningSecret(rotated));
      expect((await harness.webhooks.sendTest('agency-a')).success, 'a test send signs too').toBe(true);
    });

    it('a legacy plaintext secret keeps signing, and the next PUT re-seals it under the primary key', async () => {
      const harness = await context.harness(onlyKey(keys, 'k1'));
      const url = harness.receiver.urlFor('/legacy');
      const legacy = await writeLegacyConfig(context.fixture().store, 'agency-l', url);
      expect(await context.fixture().dump(), 'before the PUT').toContain(legacy);
      await expectDeliveredWith(harness, 'agency-l', legacy);

      const body = { webhookUrl: url, enabled: true, subscribedEventTypes: ['job_cancelled'] };
      const updated = await harness.webhooks.putConfig('agency-l', body);
      expect(updated).toMatchObject({ created: false, signingSecret: maskSigningSecret(legacy) });
      expect(await context.fixture().dump(), 'after the PUT').not.toContain(legacy);
      const stored = await context.fixture().store.getConfig('agency-l');
      expect(openSealedSecret(keys.k1, 'agency-l', stored?.signingSecret ?? '')).toBe(legacy);
      await expectDeliveredWith(harness, 'agency-l', legacy);
    });
  });

  describe('missing and wrong keys', () => {
    it('a secret under a key the service lacks fails with SecretKeyUnavailableError naming the key and agency', async () => {
      const harness = await context.harness(onlyKey(keys, 'k1'));
      const secret = await harness.configure('agency-a');
      const stored = (await context.fixture().store.getConfig('agency-a'))?.signingSecret ?? '';
      const other = context.service(onlyKey(keys, 'k2'));
      const error = await other.getConfig('agency-a').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SecretKeyUnavailableError);
      expect(error).toMatchObject({ code: 'secret_key_unavailable', keyId: 'k1', agencyId: 'agency-a' });
      expect((error as Error).message).toMatch(/agency "agency-a".*key "k1"/);
      expect(everythingIn(error)).not.toContain(secret);
      expect(everythingIn(error)).not.toContain(stored);
      await expect(other.sendTest('agency-a')).rejects.toMatchObject({ code: 'secret_key_unavailable' });
      // emit needs no secret: the delivery is stored, to be sent once the key is given.
      expect(await other.emit(jobCancelled('agency-a'))).toMatchObject({ deliveryId: expect.any(String) });

      const unkeyed = context.service();
      await expect(unkeyed.getConfig('agency-a')).rejects.toThrow(/no secretEncryption option/);
      await expect(unkeyed.getConfig('agency-a')).rejects.toMatchObject({
        keyId: 'k1',
        agencyId: 'agency-a',
      });
    });

    it('a key id given other bytes fails with SecretUndecryptableError naming the key', async () => {
      const harness = await context.harness(onlyKey(keys, 'k1'));
      const secret = await harness.configure('agency-a');
      const impostor = context.service({ keys: { k1: keys.k2 }, primaryKeyId: 'k1' });
      const error = await impostor.getConfig('agency-a').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SecretUndecryptableError);
      expect(error).toMatchObject({ code: 'secret_undecryptable', keyId: 'k1', agencyId: 'agency-a' });
      expect(everythingIn(error)).not.toContain(secret);
    });

    it('a sealed secret copied to another agency’s configuration does not open there', async () => {
      const harness = await context.harness(onlyKey(keys, 'k1'));
      await harness.configure('agency-a', ['job_cancelled'], '/a');
      await harness.configure('agency-b', ['job_cancelled'], '/b');
      const { store } = context.fixture();
      const copied = (await store.getConfig('agency-a'))?.signingSecret ?? '';
      await store.setSigningSecret('agency-b', copied, Date.now());
      await expect(harness.webhooks.getConfig('agency-b')).rejects.toMatchObject({
        code: 'secret_undecryptable',
        keyId: 'k1',
        agencyId: 'agency-b',
      });
      await expect(harness.webhooks.sendTest('agency-b')).rejects.toBeInstanceOf(SecretUndecryptableError);
      expect((await harness.webhooks.getConfig('agency-a')).signingSecret).toMatch(/^service_whsec_/);
    });
  });
}
