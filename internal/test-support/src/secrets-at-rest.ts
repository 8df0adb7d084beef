/**
 * `@svc/test-support/secrets-at-rest`: the secrets-at-rest suite each backend
 * runs (vitest). Its own entry, so that the main entry never loads vitest.
 */
import { createMemoryQueue, createWebhookService } from '@svc/webhooks-core';
import { afterEach, beforeEach, describe } from 'vitest';
import { hostResolver } from './host-resolver';
import { newSecretKey } from './sealed-secrets';
import type { SecretsAtRestContext, SecretsAtRestFixture, SuiteKeys } from './secrets-at-rest-context';

export type { SecretsAtRestFixture } from './secrets-at-rest-context';

import { describeSecretErrorCases } from './secret-error-cases';
import { describeSecretKeyCases } from './secret-key-cases';
import { describeSecretMaintenanceCases } from './secret-maintenance-cases';
import { describeSecretSigningKeyCases } from './secret-signing-key-cases';
import { startServiceHarness } from './service-harness';

/**
 * Registers the secrets-at-rest suite (vitest) for one backend: with
 * `secretEncryption`, the backend holds no plaintext secret while the service
 * signs with it; legacy plaintext keeps working and is re-sealed on write;
 * missing or wrong keys and moved ciphertexts fail with typed errors;
 * `reencryptSecrets` moves every secret to a new key without losing a
 * concurrent rotation; no error of a failed write carries a secret; and the
 * `v1a` private keys are sealed, opened to sign, and re-sealed likewise.
 */
export function describeSecretsAtRest(name: string, open: () => Promise<SecretsAtRestFixture>): void {
  describe(`secrets at rest: ${name}`, () => {
    const keys: SuiteKeys = { k1: newSecretKey(), k2: newSecretKey() };
    let current: SecretsAtRestFixture | undefined;
    const cleanups: Array<() => Promise<void>> = [];
    beforeEach(async () => {
      current = await open();
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      await current?.teardown();
      current = undefined;
    });
    const fixture = (): SecretsAtRestFixture => {
      if (!current) throw new Error('The secrets-at-rest fixture was used outside a running test.');
      return current;
    };
    const context: SecretsAtRestContext = {
      keys,
      fixture,
      async harness(encryption) {
        const { store, queue } = fixture();
        const harness = await startServiceHarness({
          store: () => store,
          ...(queue ? { queue: () => queue } : {}),
          service: { secretEncryption: encryption },
        });
        cleanups.push(() => harness.close());
        return harness;
      },
      service(encryption, overrides = {}) {
        const webhooks = createWebhookService({
          store: fixture().store,
          queue: createMemoryQueue(),
          secretEncryption: encryption,
          urlPolicy: { allowPrivateNetworks: true, resolve: hostResolver({ 'hooks.test': '127.0.0.1' }) },
          ...overrides,
        });
        cleanups.push(() => webhooks.close());
        return webhooks;
      },
    };
    describeSecretKeyCases(context);
    describeSecretMaintenanceCases(context);
    describeSecretErrorCases(context);
    describeSecretSigningKeyCases(context);
  });
}
