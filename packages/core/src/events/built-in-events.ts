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

/*
 * Examples: one sample event per type, kept beside its schema. A catalogue parses each with its
 * schema when it is created, and the tests check the envelopes built from them, so an example cannot
 * drift from the shape it illustrates. The ids are made up but consistent across the types: one agency,
 * one job, its property, quote, invoice and thread. The three types without a published shape carry
 * empty metadata rather than invented fields a receiver might come to rely on.
 */
const AGENCY = 'agency_9Wd4Rt';
const JOB = 'job_7Hq2kX';
const AGENT = 'agent_3Fz9Lm';
const PROPERTY = 'prop_2Ks8Vn';
const FULFILMENT = 'ful_5Tg1Yc';
const PROVIDER = 'sp_8Nb6Qe';
const JOB_NUMBER = 1042;

/** `job_created`: a job was logged (or transferred in; see the metadata description). */
export const jobCreatedEvent = defineEvent({
  type: 'job_created',
  entityType: 'job',
  metadata: jobCreatedMetadataSchema,
  description: 'A maintenance job was created.',
  example: {
    entityId: JOB,
    createdById: AGENT,
    createdByRole: 'Agent',
    metadata: {
      jobId: JOB,
      agencyId: AGENCY,
      jobNumber: JOB_NUMBER,
      categoryId: 'cat_plumbing',
      propertyId: PROPERTY,
      estateId: null,
      requestorType: null,
      requestorInfo: null,
      originalJobId: null,
      originalJobNumber: null,
      originalAgencyId: null,
      originalAgencyName: null,
      cancellationReason: null,
      propertyRecreated: null,
      transferredToServiceMaintenance: null,
    },
  },
});

/** `job_completed`: metadata shape not shown by the spec. */
export const jobCompletedEvent = defineEvent({
  type: 'job_completed',
  entityType: 'job',
  metadata: openMetadataSchema,
  description: 'A maintenance job was completed.',
  example: { entityId: JOB, createdById: PROVIDER, createdByRole: 'ServiceProvider', metadata: {} },
});

/** `job_cancelled`. */
export const jobCancelledEvent = defineEvent({
  type: 'job_cancelled',
  entityType: 'job',
  metadata: jobCancelledMetadataSchema,
  description: 'A maintenance job was cancelled.',
  example: {
    entityId: JOB,
    createdById: AGENT,
    createdByRole: 'Agent',
    metadata: { jobId: JOB, agencyId: AGENCY, jobNumber: JOB_NUMBER, reason: 'The tenant fixed the leak.' },
  },
});

/** `quote_approved`: `entityType` is `quote`, `parentEntityId` the job id. */
export const quoteApprovedEvent = defineEvent({
  type: 'quote_approved',
  entityType: 'quote',
  metadata: quoteApprovedMetadataSchema,
  description: "A service provider's quote was approved; parentEntityId is the job id.",
  example: {
    entityId: 'quote_4Rm7Jd',
    parentEntityId: JOB,
    createdById: AGENT,
    createdByRole: 'Agent',
    metadata: {
      fulfilmentId: FULFILMENT,
      jobId: JOB,
      agencyId: AGENCY,
      jobNumber: JOB_NUMBER,
      serviceProviderId: PROVIDER,
      quoteStatus: 'approved',
    },
  },
});

/** `invoice_approved`: metadata shape not shown by the spec. */
export const invoiceApprovedEvent = defineEvent({
  type: 'invoice_approved',
  entityType: 'invoice',
  metadata: openMetadataSchema,
  description: "A service provider's invoice was approved.",
  example: {
    entityId: 'inv_6Wc3Hs',
    parentEntityId: JOB,
    createdById: AGENT,
    createdByRole: 'Agent',
    metadata: {},
  },
});

/** `property_created`. */
export const propertyCreatedEvent = defineEvent({
  type: 'property_created',
  entityType: 'property',
  metadata: propertyCreatedMetadataSchema,
  description: 'A property was created.',
  example: {
    entityId: PROPERTY,
    createdById: AGENT,
    createdByRole: 'Agent',
    metadata: {
      propertyId: PROPERTY,
      agencyId: AGENCY,
      address: {
        formatted: '12 Loop Street, Gardens, Cape Town, 8001',
        street: { name: 'Loop Street', number: '12' },
        suburb: 'Gardens',
        city: 'Cape Town',
        province: 'Western Cape',
        postalCode: '8001',
        unitNumber: null,
      },
      estateId: null,
      estateName: null,
      managingAgentId: AGENT,
      vacant: false,
    },
  },
});

/** `message_sent`: `parentEntityId` is the thread id; metadata shape not shown by the spec. */
export const messageSentEvent = defineEvent({
  type: 'message_sent',
  entityType: 'message',
  metadata: openMetadataSchema,
  description: 'A message was sent in a job thread; parentEntityId is the thread id.',
  example: {
    entityId: 'msg_1Pv9Ga',
    parentEntityId: 'thread_3Xe8Lw',
    createdById: PROVIDER,
    createdByRole: 'ServiceProvider',
    metadata: {},
  },
});

/** `job_fulfilment_rating_submitted`. */
export const jobFulfilmentRatingSubmittedEvent = defineEvent({
  type: 'job_fulfilment_rating_submitted',
  entityType: 'job',
  metadata: jobFulfilmentRatingSubmittedMetadataSchema,
  description: 'A rating of a service provider’s work on a job was submitted.',
  example: {
    entityId: JOB,
    createdById: AGENT,
    createdByRole: 'Agent',
    metadata: {
      fulfilmentId: FULFILMENT,
      jobId: JOB,
      agencyId: AGENCY,
      jobNumber: JOB_NUMBER,
      categoryId: 'cat_plumbing',
      serviceProviderId: PROVIDER,
      rating: {
        communication: 5,
        qualityOfQuote: 4,
        qualityOfWork: 5,
        reliability: 4,
        review: 'Arrived on time and fixed the geyser properly.',
      },
    },
  },
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
