/**
 * `@svc/webhooks-core/schemas`: the zod schemas behind the management API's
 * bodies and answers, the delivery envelope and the built-in events' metadata.
 * `@svc/webhooks-express` validates requests and builds its OpenAPI document
 * from them; a host can reuse them to validate or document its own layer. The
 * TypeScript types inferred from them are exported by the main entry.
 *
 * @packageDocumentation
 * @module @svc/webhooks-core/schemas
 */

export {
  putConfigBodySchema,
  rotatedSecretSchema,
  testResultSchema,
  webhookConfigSchema,
} from './config/config';
export {
  deliveryDetailSchema,
  deliveryListSchema,
  deliveryStatusSchema,
  deliverySummarySchema,
  listDeliveriesQuerySchema,
  replayResultSchema,
} from './delivery/delivery';
export { webhookEnvelopeSchema } from './delivery/envelope';
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
