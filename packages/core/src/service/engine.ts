import type { DeliveryQueue } from '../adapters/queue';
import type { WebhookStore } from '../adapters/store';
import type { CircuitSettings } from '../delivery/circuit-breaker';
import type { AutoDisableSettings } from '../delivery/endpoint-health';
import type { RetryPolicy } from '../delivery/retry-policy';
import { InvalidOptionError } from '../errors';
import type { EventCatalogue } from '../events/event-catalogue';
import type { WebhookHooks } from '../observability/hooks';
import type { Transport } from '../transport/transport';
import type { UrlPolicy } from '../transport/url-policy';
import type { RecoveryLimiter } from './recovery-limit';
import type { RetentionSettings } from './retention';
import type { TestSendLimiter } from './test-send-limit';

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
  /** Breaker thresholds; null when the breaker is off. */
  circuit: CircuitSettings | null;
  /** When to disable an always-failing endpoint; null when auto-disable (or the breaker) is off. */
  autoDisable: AutoDisableSettings | null;
  /** Ages after which the worker purges finished deliveries; null when retention is off. */
  retention: RetentionSettings | null;
  /** How long a rotated-out `v1a` key keeps signing by default, in ms (`signingKeyOverlapMs`). */
  signingKeyOverlapMs: number;
  /** Largest serialised metadata an emit may carry (`maxPayloadBytes`). */
  maxPayloadBytes: number;
  /** Takes one test send of the agency's allowance or throws RateLimitedError. */
  takeTestSend: TestSendLimiter;
  /** Takes one bulk recovery request (dry run or start) of the agency's allowance or throws RateLimitedError. */
  takeRecovery: RecoveryLimiter;
  hooks: WebhookHooks;
  /** Called when this service stores a bulk recovery, so this process's workers walk it at once. */
  recoveryListeners: Set<() => void>;
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
    throw new InvalidOptionError(
      '@svc/webhooks-core',
      'service',
      'createWorker() needs a service made by createWebhookService().',
    );
  }
  return engine;
}
