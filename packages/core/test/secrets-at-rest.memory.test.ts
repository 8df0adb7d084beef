import { describeSecretsAtRest } from '@svc/test-support/secrets-at-rest';
import { createMemoryStore, type WebhookStore } from '../src/index';

const CONFIG_WRITES = new Set(['upsertConfig', 'setSigningSecret', 'setSigningKeys', 'disableConfig']);

/**
 * The memory store, with configuration writes of "broken" agencies refused. The error names
 * the call and no value, as the memory store's own errors do (the service's redaction of a
 * careless driver's errors is tested with one in sealed-secret-store.test.ts).
 */
function breakableMemoryStore(): { store: WebhookStore; broken: Set<string> } {
  const broken = new Set<string>();
  const store = new Proxy(createMemoryStore(), {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !CONFIG_WRITES.has(property)) return value.bind(target);
      return (...args: unknown[]) => {
        const first = args[0];
        const agencyId = typeof first === 'string' ? first : (first as { agencyId: string }).agencyId;
        if (!broken.has(agencyId)) return value.apply(target, args);
        return Promise.reject(
          new Error(`${property} refused: writes of ${agencyId} are broken for this test`),
        );
      };
    },
  });
  return { store, broken };
}

describeSecretsAtRest('memory', async () => {
  const { store, broken } = breakableMemoryStore();
  return {
    store,
    dump: async () => JSON.stringify(await store.listConfigs({ after: null, limit: 10_000 })),
    async breakConfigWrites(agencyId) {
      broken.add(agencyId);
    },
    async teardown() {},
  };
});
