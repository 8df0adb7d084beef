import { everythingIn, newSecretKey, openSealedSecret } from '@svc/test-support';
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
      if (property === 'upsertConfig' || property === 'setSigningSecret') {
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
