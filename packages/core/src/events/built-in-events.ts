import { z } from 'zod';
import { defineEvent } from './event-definition';

/*
 * The eight event types the spec names, with the five metadata shapes it gives.
 * Every field is required (present), and `.nullable()` appears exactly where the
 * spec says "or null": the spec promises receivers that every field of a shape is
 * always present. Objects are strict so a misspelt field fails at emit rather than
 * reaching receivers. The spec shows no shape for job_completed, invoice_approved
 * and message_sent, so they accept any object until the host registers a schema.
 */

/**
 * A field whose key must be present but whose value may be anything, null
 * included (spec: "null or a value whose type: not shown"). `nonoptional()`
 * refuses a missing key and an explicit `undefined`, which JSON would drop.
 */
function presentUnknown() {
  return z.unknown().nonoptional('Required: pass null when it does not apply');
}

/** Metadata of `job_created` (spec: metadata shapes). */
export const jobCreatedMetadataSchema = z
  .strictObject({
    jobId: z.string(),
    agencyId: z.string(),
    jobNumber: z.number(),
    categoryId: z.string(),
    propertyId: z.string().nullable(),
    estateId: z.string().nullable(),
    requestorType: presentUnknown(),
    requestorInfo: presentUnknown(),
    originalJobId: z.string().nullable(),
    originalJobNumber: z.number().nullable(),
    originalAgencyId: z.string().nullable(),
    originalAgencyName: z.string().nullable(),
    cancellationReason: z.string().nullable(),
    propertyRecreated: z.boolean().nullable(),
    transferredToServiceMaintenance: z.boolean().nullable(),
  })
  .meta({
    id: 'JobCreatedMetadata',
    description:
      'On the normal path the original* fields, cancellationReason, propertyRecreated and ' +
      'transferredToServiceMaintenance are null; on the transfer path they describe the source job.',
  });

/** Metadata of `job_cancelled`. */
export const jobCancelledMetadataSchema = z
  .strictObject({
    jobId: z.string(),
    agencyId: z.string(),
    jobNumber: z.number(),
    reason: z.string(),
  })
  .meta({ id: 'JobCancelledMetadata' });

/** Metadata of `quote_approved`. */
export const quoteApprovedMetadataSchema = z
  .strictObject({
    fulfilmentId: z.string(),
    jobId: z.string(),
    agencyId: z.string(),
    jobNumber: z.number(),
    serviceProviderId: z.string(),
    quoteStatus: z.string(),
  })
  .meta({ id: 'QuoteApprovedMetadata' });

/** The address object of `property_created`. */
export const propertyAddressSchema = z
  .strictObject({
    formatted: z.string(),
    street: z.strictObject({ name: z.string(), number: z.string() }),
    suburb: z.string(),
    city: z.string(),
    province: z.string(),
    postalCode: z.string(),
    unitNumber: z.string().nullable(),
  })
  .meta({ id: 'PropertyAddress' });

/** Metadata of `property_created`. */
export const propertyCreatedMetadataSchema = z
  .strictObject({
    propertyId: z.string(),
    agencyId: z.string(),
    address: propertyAddressSchema,
    estateId: z.string().nullable(),
    estateName: z.string().nullable(),
    managingAgentId: z.string(),
    vacant: z.boolean(),
  })
  .meta({ id: 'PropertyCreatedMetadata' });

/** The rating object of `job_fulfilment_rating_submitted`. */
export const fulfilmentRatingSchema = z
  .strictObject({
    communication: z.number(),
    qualityOfQuote: z.number(),
    qualityOfWork: z.number(),
    reliability: z.number(),
    review: z.string(),
  })
  .meta({ id: 'FulfilmentRating' });

/** Metadata of `job_fulfilment_rating_submitted`. */
export const jobFulfilmentRatingSubmittedMetadataSchema = z
  .strictObject({
    fulfilmentId: z.string(),
    jobId: z.string(),
    agencyId: z.string(),
    jobNumber: z.number(),
    categoryId: z.string(),
    serviceProviderId: z.string(),
    rating: fulfilmentRatingSchema,
  })
  .meta({ id: 'JobFulfilmentRatingSubmittedMetadata' });

/** Metadata of an event whose shape the spec does not show: any object, until the host registers one. */
export const openMetadataSchema = z.record(z.string(), z.unknown());

/** `job_created`: a job was logged (or transferred in; see the metadata description). */
export const jobCreatedEvent = defineEvent({
  type: 'job_created',
  entityType: 'job',
  metadata: jobCreatedMetadataSchema,
  description: 'A maintenance job was created.',
});

/** `job_completed`: metadata shape not shown by the spec. */
export const jobCompletedEvent = defineEvent({
  type: 'job_completed',
  entityType: 'job',
  metadata: openMetadataSchema,
  description: 'A maintenance job was completed.',
});

/** `job_cancelled`. */
export const jobCancelledEvent = defineEvent({
  type: 'job_cancelled',
  entityType: 'job',
  metadata: jobCancelledMetadataSchema,
  description: 'A maintenance job was cancelled.',
});

/** `quote_approved`: `entityType` is `quote`, `parentEntityId` the job id. */
export const quoteApprovedEvent = defineEvent({
  type: 'quote_approved',
  entityType: 'quote',
  metadata: quoteApprovedMetadataSchema,
  description: "A service provider's quote was approved; parentEntityId is the job id.",
});

/** `invoice_approved`: metadata shape not shown by the spec. */
export const invoiceApprovedEvent = defineEvent({
  type: 'invoice_approved',
  entityType: 'invoice',
  metadata: openMetadataSchema,
  description: "A service provider's invoice was approved.",
});

/** `property_created`. */
export const propertyCreatedEvent = defineEvent({
  type: 'property_created',
  entityType: 'property',
  metadata: propertyCreatedMetadataSchema,
  description: 'A property was created.',
});

/** `message_sent`: `parentEntityId` is the thread id; metadata shape not shown by the spec. */
export const messageSentEvent = defineEvent({
  type: 'message_sent',
  entityType: 'message',
  metadata: openMetadataSchema,
  description: 'A message was sent in a job thread; parentEntityId is the thread id.',
});

/** `job_fulfilment_rating_submitted`. */
export const jobFulfilmentRatingSubmittedEvent = defineEvent({
  type: 'job_fulfilment_rating_submitted',
  entityType: 'job',
  metadata: jobFulfilmentRatingSubmittedMetadataSchema,
  description: 'A rating of a service provider’s work on a job was submitted.',
});

/** The eight event types the spec names, in the spec's order, literal types kept. */
export const builtInEvents = [
  jobCreatedEvent,
  jobCompletedEvent,
  jobCancelledEvent,
  propertyCreatedEvent,
  quoteApprovedEvent,
  invoiceApprovedEvent,
  jobFulfilmentRatingSubmittedEvent,
  messageSentEvent,
] as const;
