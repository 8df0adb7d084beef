/**
 * `@svc/webhooks-core`: per-tenant webhook configuration, signed envelopes,
 * reliable delivery with retries, a delivery log and replay.
 *
 * @packageDocumentation
 * @module @svc/webhooks-core
 */

export type { AttemptErrorKind, AttemptOutcome } from './attempt-outcome';
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
} from './built-in-events';
export type {
  PutConfigBody,
  RotatedSecret,
  TestResult,
  WebhookConfig,
  WebhookConfigRecord,
} from './config';
export { putConfigBodySchema, rotatedSecretSchema, testResultSchema, webhookConfigSchema } from './config';
export type {
  CreatedByRole,
  DeliveryDetail,
  DeliveryList,
  DeliveryRecord,
  DeliveryStatus,
  DeliverySummary,
  DeliveryUpdate,
  ListDeliveriesQuery,
  ReplayResult,
} from './delivery';
export {
  createdByRoleSchema,
  deliveryDetailSchema,
  deliveryListSchema,
  deliveryStatusSchema,
  deliverySummarySchema,
  listDeliveriesQuerySchema,
  replayResultSchema,
  toDeliveryDetail,
  toDeliverySummary,
  webhookIdOf,
} from './delivery';
export type { EntityType } from './entity-types';
export { ENTITY_TYPES, entityTypeSchema } from './entity-types';
export type { WebhookEnvelope } from './envelope';
export {
  buildEnvelope,
  buildTestEnvelope,
  ENVELOPE_FIELDS,
  serializeEnvelope,
  TEST_EVENT_TYPE,
  webhookEnvelopeSchema,
} from './envelope';
export type { InvalidUrlReason, ValidationIssue, WebhookErrorCode } from './errors';
export {
  ConfigNotFoundError,
  DeliveryNotFoundError,
  DeliveryNotReplayableError,
  InvalidWebhookUrlError,
  SchemaNotMigratedError,
  UnknownEventTypeError,
  WebhookError,
  WebhookValidationError,
} from './errors';
export type {
  EmitInput,
  EventCatalogue,
  EventCatalogueOptions,
  EventTypeOf,
  ParsedEvent,
} from './event-catalogue';
export { createEventCatalogue } from './event-catalogue';
export type { EventDefinition, EventDefinitionInput } from './event-definition';
export { defineEvent } from './event-definition';
export type { WebhookAttemptEvent, WebhookHooks, WorkerErrorStage } from './hooks';
export { combineHooks } from './hooks';
export type { IdGeneratorOptions } from './ids';
export { createIdGenerator, isUuidV7, newId, timestampOfUuidV7 } from './ids';
export type { WebhookLogger } from './logger';
export type { MemoryQueueOptions } from './memory-queue';
export { createMemoryQueue } from './memory-queue';
export { createMemoryStore } from './memory-store';
export type { Claim, ClaimOptions, DeliveryQueue, QueueCapabilities, QueueEntry } from './queue';
export type { RetryOptions, RetryPolicy } from './retry-policy';
export { DEFAULT_RETRY_POLICY, resolveRetryPolicy, retryDelayMs, scheduledDelayMs } from './retry-policy';
export {
  generateSigningSecret,
  isMaskedSigningSecret,
  maskSigningSecret,
  SIGNING_SECRET_MASK_PREFIX,
} from './secret';
export type {
  EmitOptions,
  PutConfigResult,
  WebhookService,
  WebhookServiceOptions,
} from './service';
export { createWebhookService } from './service';
export { EVENT_TYPE_HEADER, SIGNATURE_HEADER, WEBHOOK_ID_HEADER } from './signed-request';
export type { AbandonReason } from './state-machine';
export { abandonUpdate, applyAttemptOutcome, canReplay, replayUpdate } from './state-machine';
export type {
  DeliveryExpectation,
  ListDeliveriesOptions,
  StoreCapabilities,
  TransactionOptions,
  UpsertConfigInput,
  WebhookStore,
} from './store';
export type { OutgoingDelivery, Transport, TransportOptions } from './transport';
export { createTransport } from './transport';
export type { CheckedUrl, HostResolver, ResolvedAddress, UrlPolicy, UrlPolicyOptions } from './url-policy';
export { assertUrlShape, createUrlPolicy, isPublicAddress } from './url-policy';
export type { WebhookWorker, WorkerOptions } from './worker';
export { createWorker } from './worker';
