import type { EventCatalogue } from './event-catalogue';
import type { WebhookHooks } from './hooks';
import type { DeliveryQueue } from './queue';
import type { RetryPolicy } from './retry-policy';
import type { WebhookStore } from './store';
import type { Transport } from './transport';
import type { UrlPolicy } from './url-policy';

/**
 * Everything a service resolved from its options, shared with the workers made
 * from it. Internal: reached through {@link engineOf}, never exported.
 */
export interface Engine {
  store: WebhookStore;
  queue: DeliveryQueue;
  events: EventCatalogue;
  urlPolicy: UrlPolicy;
  transport: Transport;
  retry: RetryPolicy;
  hooks: WebhookHooks;
  clock: () => number;
  random: () => number;
}

const engines = new WeakMap<object, Engine>();

/** Links a service object to its engine (called once by createWebhookService). */
export function attachEngine(service: object, engine: Engine): void {
  engines.set(service, engine);
}

/** The engine behind a service made by createWebhookService. */
export function engineOf(service: object): Engine {
  const engine = engines.get(service);
  if (!engine) {
    throw new TypeError('createWorker() needs a service made by createWebhookService().');
  }
  return engine;
}
