import { everythingIn, newSecretKey, openSealedSecret } from '@svc/test-support';
import { publicKeyOf } from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';
import type { WebhookStore } from '../src/adapters/store';
import { createSecretCipher } from '../src/config/secret-encryption';
import { createMemoryQueue, createMemoryStore, createWebhookService, maskSigningSecret } from '../src/index';
import { sealSecretsAtRest } from '../src/service/sealed-secret-store';
import { describeStoreConformance } from '../src/testing';

const KEY = newSecretKey();
const ENCRYPTION = { keys: { k1: KEY }, primaryKeyId: 'k1' };
const BODY = {
  webhookUrl: 'https://127.0.0.1:9/hooks',
  enabled: true,
  subscribedEventTypes: ['job_cancelled'],
};

// With keys, the decorator is a WebhookStore like any other: callers see opened secrets, its
// compare-and-set compares them, and everything else passes through. (Without keys it refuses to
// hand out a stored `enc:…` value as a secret, on purpose: no generated secret looks like one.)
describeStoreConformance('memory, secrets sealed by the service', () => ({
  store: sealSecretsAtRest(createMemoryStore(), createSecretCipher(ENCRYPTION)),
}));

/**
 * A store that fails every configuration write with an error carrying the
 * call's arguments, as a careless driver would (`command.args`).
 */
function carelessStore(store: WebhookStore): WebhookStore {
  const refuse = (name: string, args: unknown[]) =>
    Promise.reject(
      Object.assign(new Error(`${name} refused`), { command: { name, args: structuredClone(args) } }),
    );
  return new Proxy(store, {
    get(target, property) {
      if (property === 'upsertConfig' || property === 'setSigningSecret' || property === 'setSigningKeys') {
        return (...args: unknown[]) => refuse(property, args);
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function service(store: WebhookStore, encrypted = true) {
  return createWebhookService({
    store,
    queue: createMemoryQueue(),
    urlPolicy: { allowPrivateNetworks: true },
    ...(encrypted ? { secretEncryption: ENCRYPTION } : {}),
  });
}

describe('the service’s sealed store on the memory store', () => {
  it('the memory store holds only ciphertext; the service’s store is the one it was given', async () => {
    const store = createMemoryStore();
    const webhooks = service(store);
    const { signingSecret } = await webhooks.putConfig('agency-a', BODY);
    const rotated = (await webhooks.rotateSecret('agency-a')).signingSecret;
    expect(webhooks.store).toBe(store);
    const stored = JSON.stringify(await store.listConfigs({ after: null, limit: 10 }));
    expect(stored).not.toContain(signingSecret);
    expect(stored).not.toContain(rotated);
    const raw = (await store.getConfig('agency-a'))?.signingSecret ?? '';
    expect(openSealedSecret(KEY, 'agency-a', raw)).toBe(rotated);
    expect((await webhooks.getConfig('agency-a')).signingSecret).toBe(maskSigningSecret(rotated));
    await webhooks.close();
  });

  it('a store that attaches a failed write’s arguments to its error: the service’s error holds no secret', async () => {
    const store = createMemoryStore();
    const created = await service(store).putConfig('agency-a', BODY);
    for (const encrypted of [true, false]) {
      const webhooks = service(carelessStore(store), encrypted);
      const failures = [
        await webhooks.putConfig('agency-b', BODY).catch((error: unknown) => error),
        await webhooks.putConfig('agency-a', BODY).catch((error: unknown) => error),
        await webhooks.rotateSecret('agency-a').catch((error: unknown) => error),
      ];
      for (const failure of failures) {
        const text = everythingIn(failure);
        expect(text).toContain('refused');
        expect(text).toContain('[redacted]');
        expect(text).not.toMatch(/[0-9a-f]{64}/);
        expect(text).not.toContain('enc:v1:');
        expect(text).not.toContain(created.signingSecret);
      }
      await webhooks.close();
    }
  });

  it('a store that attaches a failed key write’s arguments to its error: no private key, sealed or not', async () => {
    const SIGNED = { ...BODY, signatureScheme: 'standard' as const, asymmetricSignatures: true };
    for (const encrypted of [true, false]) {
      const store = createMemoryStore();
      await service(store, encrypted).putConfig('agency-a', SIGNED);
      const webhooks = service(carelessStore(store), encrypted);
      const failures = [
        await webhooks.putConfig('agency-b', SIGNED).catch((error: unknown) => error),
        await webhooks
          .putConfig('agency-a', { ...SIGNED, asymmetricSignatures: false })
          .catch((e: unknown) => e),
        await webhooks.rotateSigningKey('agency-a').catch((error: unknown) => error),
      ];
      for (const failure of failures) {
        const text = everythingIn(failure);
        expect(text).toContain('refused');
        expect(text).not.toContain('whsk_');
        expect(text).not.toContain('enc:v1:');
      }
      await webhooks.close();
    }
  });

  it('the memory store holds every private key sealed; the service signs and publishes with them', async () => {
    const store = createMemoryStore();
    const webhooks = service(store);
    await webhooks.putConfig('agency-a', { ...BODY, signatureScheme: 'both', asymmetricSignatures: true });
    const { signingPublicKeys } = await webhooks.rotateSigningKey('agency-a');
    const raw = (await store.getConfig('agency-a'))?.signingKeys ?? [];
    expect(JSON.stringify(raw)).not.toContain('whsk_');
    expect(raw.map((key) => key.kid)).toEqual(signingPublicKeys.map((key) => key.kid));
    for (const key of raw) {
      expect(key.privateKey).toMatch(/^enc:v1:k1:/);
      expect(publicKeyOf(openSealedSecret(KEY, 'agency-a', key.privateKey))).toBe(key.publicKey);
    }
    // Through the service's store the keys read opened, and the view needs none of them.
    const opened = await sealSecretsAtRest(store, createSecretCipher(ENCRYPTION)).getConfig('agency-a');
    expect(opened?.signingKeys.map((key) => publicKeyOf(key.privateKey))).toEqual(
      raw.map((key) => key.publicKey),
    );
    const keyless = service(store, false);
    await expect(keyless.getPublicKeys('agency-a')).resolves.toMatchObject({ keys: [{}, {}] });
    await webhooks.close();
    await keyless.close();
  });

  it('emit needs no secret: a configuration whose key is missing still gets its deliveries stored', async () => {
    const store = createMemoryStore();
    await service(store).putConfig('agency-a', BODY);
    const elsewhere = createWebhookService({
      store,
      queue: createMemoryQueue(),
      secretEncryption: { keys: { k2: newSecretKey() }, primaryKeyId: 'k2' },
    });
    const emitted = await elsewhere.emit({
      agencyId: 'agency-a',
      eventType: 'job_cancelled',
      entityId: 'job-1',
      metadata: { jobId: 'job-1', agencyId: 'agency-a', jobNumber: 1, reason: 'test' },
    });
    expect(emitted).toMatchObject({ deliveryId: expect.any(String) });
    await expect(elsewhere.getConfig('agency-a')).rejects.toMatchObject({ code: 'secret_key_unavailable' });
  });
});
