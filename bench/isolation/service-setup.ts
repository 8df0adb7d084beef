import { randomUUID } from 'node:crypto';
import {
  createWebhookService,
  type DeliveryQueue,
  type HostResolver,
  type WebhookHooks,
  type WebhookService,
  type WebhookStore,
} from '@svc/webhooks-core';

/** TTL of every `hooks.test` answer, in seconds: longer than any measurement, so each name is resolved once. */
const ANSWER_TTL_S = 300;

/**
 * The resolver hook of every service here: `hooks.test` and `*.hooks.test` are
 * 127.0.0.1 (where the receivers listen), anything else does not exist. The
 * answer carries a TTL so the URL policy caches it, as it would a real DNS answer.
 */
export const resolveHooksTest: HostResolver = async (hostname) => {
  if (hostname === 'hooks.test' || hostname.endsWith('.hooks.test')) {
    return [{ address: '127.0.0.1', family: 4, ttl: ANSWER_TTL_S }];
  }
  const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  error.code = 'ENOTFOUND';
  throw error;
};

/**
 * A service with default settings except what reaching the local receivers
 * needs: the resolver hook, private addresses allowed (127.0.0.1), and the
 * receivers' certificate trusted. Everything else (timeouts, pool caps, …) is
 * whatever core's defaults are when the benchmark runs.
 */
export function createIsolationService(
  backend: { store: WebhookStore; queue: DeliveryQueue },
  ca: string,
  hooks: WebhookHooks,
): WebhookService {
  return createWebhookService({
    store: backend.store,
    queue: backend.queue,
    urlPolicy: { allowPrivateNetworks: true, resolve: resolveHooksTest },
    transport: { tls: { ca } },
    hooks,
  });
}

/** One agency of a run and where its receiver is. */
export interface AgencyConfig {
  agencyId: string;
  webhookUrl: string;
}

/**
 * Writes an enabled configuration subscribed to `job_cancelled` for each agency,
 * straight into the store (the URL check at PUT would only warm the DNS cache
 * that every run starts without).
 */
export async function configureAgencies(
  store: WebhookStore,
  configs: readonly AgencyConfig[],
  secret: string,
): Promise<void> {
  await Promise.all(
    configs.map(({ agencyId, webhookUrl }) =>
      store.upsertConfig({
        agencyId,
        webhookUrl,
        enabled: true,
        subscribedEventTypes: ['job_cancelled'],
        now: Date.now(),
        newId: randomUUID(),
        newSigningSecret: secret,
      }),
    ),
  );
}
