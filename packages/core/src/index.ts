/**
 * `@svc/webhooks-core`: per-tenant webhook configuration, signed envelopes,
 * reliable delivery with retries, a delivery log and replay.
 *
 * @packageDocumentation
 * @module @svc/webhooks-core
 */

export type { Claim, ClaimOptions, DeliveryQueue, QueueCapabilities, QueueEntry } from './adapters/queue';
export type {
  DeliveryExpectation,
  ListDeliveriesOptions,
  StoreCapabilities,
  TransactionOptions,
  UpsertConfigInput,
  WebhookStore,
} from './adapters/store';
export type {
  PutConfigBody,
  RotatedSecret,
  TestResult,
  WebhookConfig,
  WebhookConfigRecord,
} from './config/config';
export {
  putConfigBodySchema,
  rotatedSecretSchema,
  testResultSchema,
  webhookConfigSchema,
} from './config/config';
export {
  generateSigningSecret,
  isMaskedSigningSecret,
  maskSigningSecret,
  SIGNING_SECRET_MASK_PREFIX,
} from './config/secret';
export type { AttemptErrorKind, AttemptOutcome } from './delivery/attempt-outcome';
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
export {
  deliveryDetailSchema,
  deliveryListSchema,
  deliveryStatusSchema,
  deliverySummarySchema,
  listDeliveriesQuerySchema,
  replayResultSchema,
  toDeliveryDetail,
  toDeliverySummary,
  webhookIdOf,
} from './delivery/delivery';
export type { WebhookEnvelope } from './delivery/envelope';
export {
  buildEnvelope,
  buildTestEnvelope,
  ENVELOPE_FIELDS,
  serializeEnvelope,
  webhookEnvelopeSchema,
} from './delivery/envelope';
export type { RetryOptions, RetryPolicy } from './delivery/retry-policy';
export {
  DEFAULT_RETRY_POLICY,
  resolveRetryPolicy,
  retryDelayMs,
  scheduledDelayMs,
} from './delivery/retry-policy';
export type { AbandonReason } from './delivery/state-machine';
export { abandonUpdate, applyAttemptOutcome, canReplay, replayUpdate } from './delivery/state-machine';
export type { InvalidUrlReason, ValidationIssue, WebhookErrorCode } from './errors';
export {
  ConfigNotFoundError,
  DeliveryNotFoundError,
  DeliveryNotReplayableError,
  InvalidOptionError,
  InvalidWebhookUrlError,
  SchemaNotMigratedError,
  UnknownEventTypeError,
  WebhookError,
  WebhookValidationError,
} from './errors';
export {
  builtInEvents,
  fulfilmentRatingSchema,
  invoiceApprovedEvent,
  jobCancelledEvent,
  jobCancelledMetadataSchema,
  jobCompletedEvent,
  jobCreatedEvent,
  jobCreatedMetadataSchema,
  jobFulfilmentRatingSubmittedEvent,
  jobFulfilmentRatingSubmittedMetadataSchema,
  messageSentEvent,
  openMetadataSchema,
  propertyAddressSchema,
  propertyCreatedEvent,
  propertyCreatedMetadataSchema,
  quoteApprovedEvent,
  quoteApprovedMetadataSchema,
} from './events/built-in-events';
export type { EntityType } from './events/entity-types';
export { ENTITY_TYPES, entityTypeSchema } from './events/entity-types';
export type {
  CreatedByRole,
  EmitInput,
  EventCatalogue,
  EventCatalogueOptions,
  EventTypeOf,
  ParsedEvent,
} from './events/event-catalogue';
export { createdByRoleSchema, createEventCatalogue } from './events/event-catalogue';
export type { EventDefinition, EventDefinitionInput } from './events/event-definition';
export { defineEvent, TEST_EVENT_TYPE } from './events/event-definition';
export type { IdGeneratorOptions } from './ids';
export { createIdGenerator, isUuidV7, newId, timestampOfUuidV7 } from './ids';
export type { MemoryQueueOptions } from './memory/memory-queue';
export { createMemoryQueue } from './memory/memory-queue';
export { createMemoryStore } from './memory/memory-store';
export type { WebhookAttemptEvent, WebhookHooks, WorkerErrorStage } from './observability/hooks';
export { combineHooks } from './observability/hooks';
export type { WebhookLogger } from './observability/logger';
export type {
  EmitOptions,
  PutConfigResult,
  WebhookService,
  WebhookServiceOptions,
} from './service/service';
export { createWebhookService } from './service/service';
export { EVENT_TYPE_HEADER, SIGNATURE_HEADER, WEBHOOK_ID_HEADER } from './transport/signed-request';
export type { OutgoingDelivery, Transport, TransportOptions } from './transport/transport';
export { createTransport } from './transport/transport';
export type {
  CheckedUrl,
  HostResolver,
  ResolvedAddress,
  UrlPolicy,
  UrlPolicyOptions,
} from './transport/url-policy';
export { assertUrlShape, createUrlPolicy, isPublicAddress } from './transport/url-policy';
export { createRecoverySweep, type RecoverySweep, type RecoverySweepOptions } from './worker/recovery-sweep';
export type { WebhookWorker, WorkerOptions } from './worker/worker';
export { createWorker } from './worker/worker';
