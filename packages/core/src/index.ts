/**
 * `@svc/webhooks-core`: per-tenant webhook configuration, signed envelopes,
 * reliable delivery with retries, a delivery log and replay.
 *
 * This entry holds what a host application, an adapter author or a receiver
 * needs. The zod schemas of the management API and of the events are in
 * `@svc/webhooks-core/schemas`; helpers for adapter authors in
 * `@svc/webhooks-core/adapter-kit`; the conformance suites in
 * `@svc/webhooks-core/testing`; OpenTelemetry in `@svc/webhooks-core/otel`.
 *
 * @packageDocumentation
 * @module @svc/webhooks-core
 */

export type {
  Claim,
  ClaimOptions,
  DeliveryQueue,
  QueueCapabilities,
  QueueEntry,
} from './adapters/queue';
export type {
  CountDeliveriesFilter,
  DeliveryExpectation,
  DisableConfigInput,
  ListConfigsOptions,
  ListDeliveriesOptions,
  PurgeDeliveriesOptions,
  PurgeRecoveriesOptions,
  RecoveryListOptions,
  RecoveryPageOptions,
  RecoveryPageReplay,
  SetSigningSecretOptions,
  StoreCapabilities,
  TransactionOptions,
  UpsertConfigInput,
  WebhookStore,
} from './adapters/store';
export type {
  PutConfigBody,
  RotatedSecret,
  RotatedSigningKey,
  RotateSigningKeyBody,
  SignatureScheme,
  SigningJwk,
  SigningJwks,
  SigningKeyRecord,
  SigningPublicKey,
  TestResult,
  WebhookConfig,
  WebhookConfigRecord,
} from './config/config';
export { generateSigningSecret, maskSigningSecret } from './config/secret';
export type { SecretEncryptionOptions } from './config/secret-encryption';
export type { AttemptErrorKind, AttemptOutcome } from './delivery/attempt-outcome';
export type { AttemptList, AttemptRecord, AttemptTrigger } from './delivery/attempt-record';
export type {
  CircuitBreakerOptions,
  CircuitRecord,
  CircuitState,
  CircuitStatus,
} from './delivery/circuit-breaker';
export type {
  DeliveryDetail,
  DeliveryList,
  DeliveryRecord,
  DeliveryStatus,
  DeliverySummary,
  DeliveryUpdate,
  ListDeliveriesQuery,
  ReplayResult,
} from './delivery/delivery';
export { webhookIdOf } from './delivery/delivery';
export type { AutoDisableOptions, EndpointHealth, EndpointHealthState } from './delivery/endpoint-health';
export { AUTO_DISABLED_FAILING, RECEIVER_GONE } from './delivery/endpoint-health';
export type { WebhookEnvelope } from './delivery/envelope';
export type {
  ListRecoveriesQuery,
  RecoverDeliveriesBody,
  Recovery,
  RecoveryDryRun,
  RecoveryList,
  RecoveryRecord,
  RecoveryStarted,
  RecoveryStatus,
  RecoveryUpdate,
} from './delivery/recovery';
export type { RetryOptions } from './delivery/retry-policy';
export type { InvalidUrlReason, ValidationIssue, WebhookErrorCode } from './errors';
export {
  ConfigNotFoundError,
  DeliveryNotFoundError,
  DeliveryNotReplayableError,
  InvalidOptionError,
  InvalidWebhookUrlError,
  PayloadTooLargeError,
  RateLimitedError,
  RecoveryInProgressError,
  RecoveryNotFoundError,
  RecoveryNotRunningError,
  SchemaNotMigratedError,
  SecretKeyUnavailableError,
  SecretUndecryptableError,
  StoreUnavailableError,
  UnknownEventTypeError,
  WebhookError,
  WebhookValidationError,
} from './errors';
export { builtInEvents } from './events/built-in-events';
export type { EntityType } from './events/entity-types';
export { ENTITY_TYPES } from './events/entity-types';
export type {
  CreatedByRole,
  EmitInput,
  EventCatalogue,
  EventCatalogueOptions,
  EventMetadataMap,
  EventTypeOf,
  ParsedEvent,
} from './events/event-catalogue';
export { createEventCatalogue } from './events/event-catalogue';
export type { EventDefinition, EventDefinitionInput, EventExample } from './events/event-definition';
export { defineEvent, TEST_EVENT_TYPE } from './events/event-definition';
export type { ExampleEnvelope, ExampleEnvelopeOptions } from './events/event-example';
export { buildExampleEnvelope } from './events/event-example';
export type { EventTypeList, EventTypeSummary } from './events/event-type-list';
export { listEventTypes } from './events/event-type-list';
export type { TestEventMetadata } from './events/test-event';
export { webhookTestEvent } from './events/test-event';
export type { SendTestBody } from './events/test-send';
export { createMemoryQueue, type MemoryQueueOptions } from './memory/memory-queue';
export { createMemoryStore } from './memory/memory-store';
export type {
  WebhookAttemptEvent,
  WebhookCircuitEvent,
  WebhookEndpointDisabledEvent,
  WebhookEndpointHealthEvent,
  WebhookHooks,
  WebhookPurgeEvent,
  WorkerErrorStage,
} from './observability/hooks';
export { combineHooks } from './observability/hooks';
export type { WebhookLogger } from './observability/logger';
export type { RecoveryLimitOptions } from './service/recovery-limit';
export type { RetentionOptions } from './service/retention';
export type { ReencryptSecretsOptions, ReencryptSecretsResult } from './service/secret-reencryption';
export type {
  EmitOptions,
  PutConfigResult,
  WebhookService,
  WebhookServiceOptions,
} from './service/service';
export { createWebhookService } from './service/service';
export type { TestSendLimitOptions } from './service/test-send-limit';
export type { TransportStats } from './transport/pinned-pools';
export { EVENT_TYPE_HEADER, SIGNATURE_HEADER, WEBHOOK_ID_HEADER } from './transport/signed-request';
export type { TransportOptions } from './transport/transport';
export type { HostResolver, ResolvedAddress, UrlPolicyOptions } from './transport/url-policy';
export { DEFAULT_DENIED_RANGES } from './transport/url-policy';
export { createRecoverySweep, type RecoverySweep, type RecoverySweepOptions } from './worker/recovery-sweep';
export type { RecoveryWalkerOptions } from './worker/recovery-walker';
export type { RetentionPurgeOptions } from './worker/retention-purge';
export type { WebhookWorker, WorkerOptions } from './worker/worker';
export { createWorker } from './worker/worker';
