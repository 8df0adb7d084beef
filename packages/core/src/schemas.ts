/**
 * `@svc/webhooks-core/schemas`: the zod schemas behind the management API's
 * bodies and answers, the delivery envelope and the built-in events' metadata.
 * `@svc/webhooks-express` validates requests and builds its OpenAPI document
 * from them; a host can reuse them to validate or document its own layer. The
 * TypeScript types inferred from them are exported by the main entry. The
 * event contract is derived from them here too: each event type's envelope as
 * zod and as JSON Schema, and a types-only module for receivers.
 *
 * @packageDocumentation
 * @module @svc/webhooks-core/schemas
 */

export {
  putConfigBodySchema,
  rotatedSecretSchema,
  rotatedSigningKeySchema,
  rotateSigningKeyBodySchema,
  signatureSchemeSchema,
  signingJwkSchema,
  signingJwksSchema,
  signingPublicKeySchema,
  testResultSchema,
  webhookConfigSchema,
} from './config/config';
export { attemptErrorKindSchema } from './delivery/attempt-outcome';
export { attemptListSchema, attemptRecordSchema, attemptTriggerSchema } from './delivery/attempt-record';
export {
  deliveryDetailSchema,
  deliveryListSchema,
  deliveryStatusSchema,
  deliverySummarySchema,
  listDeliveriesQuerySchema,
  replayResultSchema,
} from './delivery/delivery';
export { endpointHealthSchema, endpointHealthStateSchema } from './delivery/endpoint-health';
export { webhookEnvelopeSchema } from './delivery/envelope';
export {
  listRecoveriesQuerySchema,
  recoverDeliveriesBodySchema,
  recoveryDryRunSchema,
  recoveryListSchema,
  recoverySchema,
  recoveryStartedSchema,
  recoveryStatusSchema,
} from './delivery/recovery';
export {
  fulfilmentRatingSchema,
  jobCancelledMetadataSchema,
  jobCreatedMetadataSchema,
  jobFulfilmentRatingSubmittedMetadataSchema,
  openMetadataSchema,
  propertyAddressSchema,
  propertyCreatedMetadataSchema,
  quoteApprovedMetadataSchema,
} from './events/built-in-events';
export { entityTypeSchema } from './events/entity-types';
export { createdByRoleSchema } from './events/event-catalogue';
export type { EventJsonSchema } from './events/event-json-schema';
export { buildEventEnvelopeSchema, buildEventJsonSchema } from './events/event-json-schema';
export { eventTypeListSchema, eventTypeSummarySchema } from './events/event-type-list';
export type { EventTypesModuleOptions } from './events/event-types-module';
export { buildEventTypesModule } from './events/event-types-module';
export { testEventMetadataSchema } from './events/test-event';
export { sendTestBodySchema } from './events/test-send';
