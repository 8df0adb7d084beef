import type { EventMetadataMap } from '@svc/webhooks-core';
import { verifyWebhook } from '@svc/webhooks-verify';
import type { events } from './custom-events';

/**
 * A receiver in the host's own codebase: the catalogue's metadata types, imported as types only (nothing
 * of core is loaded at run time), including the host's job_fulfilment_started and its job_completed schema.
 */
export type AcmeWebhookEvents = EventMetadataMap<typeof events>;

export function describeDelivery(rawBody: Buffer, header: string | undefined, secret: string): string {
  const event = verifyWebhook<AcmeWebhookEvents>(rawBody, header, secret);
  switch (event.eventType) {
    case 'job_fulfilment_started':
      return `${event.metadata.serviceProviderId} started ${event.metadata.jobId} at ${event.metadata.startedAt}`;
    case 'job_completed':
      return `job #${event.metadata.jobNumber} completed at ${event.metadata.completedAt}`;
    default:
      return event.eventType;
  }
}
