// Generated from the built-in event catalogue by `pnpm events:generate`; do not edit.
/*
 * Metadata types of webhook events, generated from an event catalogue by buildEventTypesModule()
 * of @svc/webhooks-core. Do not edit by hand: generate it again when the catalogue changes.
 */

/**
 * The metadata type of each event type, keyed by `eventType`. Pass it to `verifyWebhook<…>()` so that
 * checking `eventType` narrows `metadata`.
 */
export type WebhookEventMap = {
  /** A maintenance job was created. */
  job_created: JobCreatedMetadata;
  /** A maintenance job was completed. */
  job_completed: JobCompletedMetadata;
  /** A maintenance job was cancelled. */
  job_cancelled: JobCancelledMetadata;
  /** A property was created. */
  property_created: PropertyCreatedMetadata;
  /** A service provider's quote was approved; parentEntityId is the job id. */
  quote_approved: QuoteApprovedMetadata;
  /** A service provider's invoice was approved. */
  invoice_approved: InvoiceApprovedMetadata;
  /** A rating of a service provider’s work on a job was submitted. */
  job_fulfilment_rating_submitted: JobFulfilmentRatingSubmittedMetadata;
  /** A message was sent in a job thread; parentEntityId is the thread id. */
  message_sent: MessageSentMetadata;
  /** Sent by `POST /config/test` without a body, to check that the endpoint receives and verifies deliveries. Never retried, never in the delivery log. */
  webhook_test: WebhookTestMetadata;
};

/** Metadata of `job_created`. On the normal path the original* fields, cancellationReason, propertyRecreated and transferredToServiceMaintenance are null; on the transfer path they describe the source job. */
export type JobCreatedMetadata = {
  jobId: string;
  agencyId: string;
  jobNumber: number;
  categoryId: string;
  propertyId: string | null;
  estateId: string | null;
  requestorType: unknown;
  requestorInfo: unknown;
  originalJobId: string | null;
  originalJobNumber: number | null;
  originalAgencyId: string | null;
  originalAgencyName: string | null;
  cancellationReason: string | null;
  propertyRecreated: boolean | null;
  transferredToServiceMaintenance: boolean | null;
};

/** Metadata of `job_completed`. */
export type JobCompletedMetadata = { [key: string]: unknown };

/** Metadata of `job_cancelled`. */
export type JobCancelledMetadata = {
  jobId: string;
  agencyId: string;
  jobNumber: number;
  reason: string;
};

/** Metadata of `property_created`. */
export type PropertyCreatedMetadata = {
  propertyId: string;
  agencyId: string;
  address: PropertyAddress;
  estateId: string | null;
  estateName: string | null;
  managingAgentId: string;
  vacant: boolean;
};

/** The `PropertyAddress` object of the metadata. */
export type PropertyAddress = {
  formatted: string;
  street: {
    name: string;
    number: string;
  };
  suburb: string;
  city: string;
  province: string;
  postalCode: string;
  unitNumber: string | null;
};

/** Metadata of `quote_approved`. */
export type QuoteApprovedMetadata = {
  fulfilmentId: string;
  jobId: string;
  agencyId: string;
  jobNumber: number;
  serviceProviderId: string;
  quoteStatus: string;
};

/** Metadata of `invoice_approved`. */
export type InvoiceApprovedMetadata = { [key: string]: unknown };

/** Metadata of `job_fulfilment_rating_submitted`. */
export type JobFulfilmentRatingSubmittedMetadata = {
  fulfilmentId: string;
  jobId: string;
  agencyId: string;
  jobNumber: number;
  categoryId: string;
  serviceProviderId: string;
  rating: FulfilmentRating;
};

/** The `FulfilmentRating` object of the metadata. */
export type FulfilmentRating = {
  communication: number;
  qualityOfQuote: number;
  qualityOfWork: number;
  reliability: number;
  review: string;
};

/** Metadata of `message_sent`. */
export type MessageSentMetadata = { [key: string]: unknown };

/** Metadata of `webhook_test`. */
export type WebhookTestMetadata = {
  /** Says that this is a test delivery */
  message: string;
  /** The agency whose endpoint is being tested */
  agencyId: string;
};
