import { describe } from 'vitest';
import type { WebhookStore } from '../adapters/store';
import { useAdapterFixture } from './adapter-fixture';
import { describeAttemptHistoryCases } from './store-attempt-cases';
import { describeCircuitCases } from './store-circuit-cases';
import { describeConfigCases } from './store-config-cases';
import { describeConfigDisableCases } from './store-config-disable-cases';
import { describeConfigListCases } from './store-config-list-cases';
import { describeDeliveryCountCases } from './store-count-cases';
import { describeDeliveryListCases } from './store-list-cases';
import { describeDeliveryListFilterCases } from './store-list-filter-cases';
import { describeMaintenanceCases } from './store-maintenance-cases';
import { describeRecoveryCases } from './store-recovery-cases';
import { describeRecoveryPageCases } from './store-recovery-page-cases';
import { describeSecretCases } from './store-secret-cases';
import { describeSigningKeyCases } from './store-signing-key-cases';
import { describeDeliveryUpdateCases } from './store-update-cases';
import { describeDeliveryWriteCases } from './store-write-cases';

/** What a store factory returns for one test. */
export interface StoreFactoryResult {
  /** An empty store: no configurations, no deliveries (a fresh schema, key prefix or instance). */
  store: WebhookStore;
  /** Runs after the test: drop the schema or keys, close what the factory opened. */
  teardown?: () => Promise<void>;
}

/**
 * Registers the {@link WebhookStore} conformance suite (vitest): every behaviour
 * the service relies on, each specified once. `factory` runs before every test
 * and must return an empty store; `teardown` runs after it.
 *
 * Tests use explicit timestamps, never sleep, and skip (with a note) the cases of
 * an optional capability the store does not declare or an optional method it
 * does not implement (`countDeliveries`, `replayRecoveryPage`).
 *
 * @param name - Shown in the suite title, e.g. `'PostgreSQL'`.
 * @param factory - Creates an empty store for one test.
 * @example
 * ```ts
 * // test/conformance.test.ts
 * import { describeStoreConformance } from '@svc/webhooks-core/testing';
 * describeStoreConformance('PostgreSQL', async () => {
 *   const schema = await createTestSchema();
 *   return { store: createPgStore({ pool, schema }), teardown: () => dropSchema(schema) };
 * });
 * ```
 */
export function describeStoreConformance(
  name: string,
  factory: () => Promise<StoreFactoryResult> | StoreFactoryResult,
): void {
  describe(`WebhookStore conformance: ${name}`, () => {
    const fixture = useAdapterFixture(factory);
    const store = (): WebhookStore => fixture().store;
    describeConfigCases(store);
    describeConfigDisableCases(store);
    describeSecretCases(store);
    describeSigningKeyCases(store);
    describeConfigListCases(store);
    describeDeliveryWriteCases(store);
    describeDeliveryListCases(store);
    describeDeliveryListFilterCases(store);
    describeDeliveryCountCases(store);
    describeDeliveryUpdateCases(store);
    describeAttemptHistoryCases(store);
    describeMaintenanceCases(store);
    describeCircuitCases(store);
    describeRecoveryCases(store);
    describeRecoveryPageCases(store);
  });
}
