import type { DeliveryQueue } from '../adapters/queue';
import type { WebhookStore } from '../adapters/store';
import type { SecretEncryptionOptions } from '../config/secret-encryption';
import type { CircuitBreakerOptions } from '../delivery/circuit-breaker';
import type { AutoDisableOptions } from '../delivery/endpoint-health';
import type { RetryOptions } from '../delivery/retry-policy';
import type { EventCatalogue } from '../events/event-catalogue';
import type { WebhookHooks } from '../observability/hooks';
import type { WebhookLogger } from '../observability/logger';
import type { TransportOptions } from '../transport/transport';
import type { UrlPolicyOptions } from '../transport/url-policy';
import type { RecoveryLimitOptions } from './recovery-limit';
import type { RetentionOptions } from './retention';
import type { TestSendLimitOptions } from './test-send-limit';

/** Options of {@link createWebhookService}. */
export interface WebhookServiceOptions<TEvents extends EventCatalogue = EventCatalogue> {
  /** Where configurations and the delivery log live (`createMemoryStore()`, `createPgStore()`, …). */
  store: WebhookStore;
  /** Where due work waits for a worker (`createMemoryQueue()`, `createPgQueue()`, …). */
  queue: DeliveryQueue;
  /**
   * Seals signing secrets at rest (AES-256-GCM under `primaryKeyId`, bound to the agency):
   * the store holds only `enc:v1:<keyId>:…`. Plaintext secrets from before keep working and
   * are re-sealed on their next write or by {@link WebhookService.reencryptSecrets}. Give
   * every process the same keys; see docs/security.md, "Secrets at rest".
   * @default none: secrets are stored as generated
   * @example
   * createWebhookService({ store, queue, secretEncryption: { keys: { k1: process.env.WEBHOOK_KEY_K1! }, primaryKeyId: 'k1' } })
   */
  secretEncryption?: SecretEncryptionOptions;
  /**
   * How long the previous `v1a` (Ed25519) signing key keeps signing beside the new one after
   * {@link WebhookService.rotateSigningKey}, in ms, when the call gives no `overlapMs`: receivers
   * that cache the agency's JWKS have this long to fetch the new key. An integer from 0 (the old
   * key stops at once) to 604_800_000 (7 days).
   * @default 86_400_000 (1 day)
   * @throws InvalidOptionError outside 0..604_800_000 or not an integer
   * @example
   * createWebhookService({ store, queue, signingKeyOverlapMs: 3_600_000 }) // one hour
   */
  signingKeyOverlapMs?: number;
  /**
   * Event catalogue: which event types exist and their metadata schemas.
   * @default createEventCatalogue() — the eight built-in event types
   */
  events?: TEvents;
  /** SSRF rules for webhook URLs, applied at PUT and again at every send. */
  urlPolicy?: UrlPolicyOptions;
  /**
   * Attempts and backoff.
   * @default { maxAttempts: 5, schedule: [60_000, 600_000, 7_200_000, 43_200_000] } with ±20 % jitter
   */
  retry?: RetryOptions;
  /** HTTP client settings (timeouts, extra CA, pool and socket caps). */
  transport?: TransportOptions;
  /**
   * The per-agency circuit breaker: after `failureThreshold` receiver failures in
   * a row the agency's due deliveries wait, without spending an attempt or a
   * worker slot, until one probe attempt finds the receiver answering. Its state
   * is kept in the store, so every worker process sees it. `false` turns it off.
   * @default { failureThreshold: 5, openMs: 30_000, maxOpenMs: 600_000 }
   */
  circuitBreaker?: CircuitBreakerOptions | false;
  /**
   * Disables an agency's configuration (`enabled: false`, `disabledReason: 'auto_disabled_failing'`)
   * once every attempt has gone without a 2xx for `afterMs`; `onEndpointDisabled` tells the host.
   * Health is kept by the circuit breaker: with `circuitBreaker: false` only `false` is accepted.
   * @default { afterMs: 432_000_000 } (5 days)
   * @throws InvalidOptionError when given with `circuitBreaker: false`
   */
  autoDisable?: AutoDisableOptions | false;
  /**
   * Per-agency limit on {@link WebhookService.sendTest} (a token bucket in this
   * process); past it `sendTest` throws `RateLimitedError` (HTTP 429 with
   * `Retry-After` through the router) and sends nothing. `false` turns it off.
   * @default { max: 10, perMs: 60_000 }
   */
  testSendLimit?: TestSendLimitOptions | false;
  /**
   * Per-agency limit on {@link WebhookService.recoverDeliveries}, dry runs and starts
   * drawing on one allowance (a token bucket in this process). Past it the call throws
   * `RateLimitedError` (HTTP 429 with `Retry-After` through the router) and counts,
   * stores and starts nothing. A request refused as invalid (`validation_failed`) uses
   * none of it. `false` turns it off.
   * @default { max: 5, perMs: 60_000 } (five in a burst, then one every 12 s)
   * @throws InvalidOptionError when `max` or `perMs` is not a positive integer
   * @example
   * createWebhookService({ store, queue, recoveryLimit: { max: 10, perMs: 60_000 } })
   */
  recoveryLimit?: RecoveryLimitOptions | false;
  /**
   * Ages after which workers delete finished deliveries (and their attempts); pending ones never.
   * Finished bulk recoveries (`completed`, `cancelled`) go `failedMs` after their `completedAt`;
   * running ones never. `false` keeps everything. Left at the default, a store without
   * `capabilities.purge` keeps everything.
   * @default { successMs: 2_592_000_000, failedMs: 7_776_000_000 } (30 and 90 days)
   * @throws InvalidOptionError when given for a store without `capabilities.purge`
   * @example
   * createWebhookService({ store, queue, retention: { successMs: 7 * 86_400_000, failedMs: 30 * 86_400_000 } })
   */
  retention?: RetentionOptions | false;
  /**
   * Largest metadata an `emit` may carry, in UTF-8 bytes of its JSON. A larger event is refused with
   * `PayloadTooLargeError` (`payload_too_large`) and nothing is stored: the payload is re-sent whole on
   * every attempt, and receivers' frameworks often cap bodies at 1 MiB or less.
   * @default 262_144 (256 KiB)
   */
  maxPayloadBytes?: number;
  /**
   * Observability callbacks; none by default. To use several sets (your own and
   * `createOpenTelemetryHooks()` from `@svc/webhooks-core/otel`), merge them with
   * {@link combineHooks}.
   */
  hooks?: WebhookHooks;
  /**
   * Where to log (pino-compatible). Attempts are logged at `debug`, deliveries that
   * end `failed` at `warn`, worker store or queue failures at `error`; secrets and
   * bodies never.
   * @default none: the service is silent
   * @example
   * createWebhookService({ store, queue, logger: pino() })
   */
  logger?: WebhookLogger;
  /**
   * Source of "now" in epoch ms, for tests.
   * @default Date.now
   */
  clock?: () => number;
  /**
   * Source of jitter in [0, 1), for tests.
   * @default Math.random
   */
  random?: () => number;
}
