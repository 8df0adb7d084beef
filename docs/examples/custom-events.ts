import {
  createEventCatalogue,
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  defineEvent,
} from '@svc/webhooks-core';
import { z } from 'zod';

/** A new event type: one of the `job_fulfilment_*` family. */
export const jobFulfilmentStarted = defineEvent({
  type: 'job_fulfilment_started',
  entityType: 'job',
  description: 'A service provider started work on a job.',
  metadata: z.strictObject({
    fulfilmentId: z.string(),
    jobId: z.string(),
    agencyId: z.string(),
    serviceProviderId: z.string(),
    startedAt: z.number().int(),
  }),
});

/** A schema for a built-in type that accepts any object until you give it one. */
export const jobCompleted = defineEvent({
  type: 'job_completed',
  entityType: 'job',
  metadata: z.strictObject({
    jobId: z.string(),
    agencyId: z.string(),
    jobNumber: z.number().int(),
    completedAt: z.number().int(),
  }),
});

// The built-in types plus yours; a later definition of the same type replaces the built-in one.
export const events = createEventCatalogue([jobFulfilmentStarted, jobCompleted]);

export const webhooks = createWebhookService({
  store: createMemoryStore(),
  queue: createMemoryQueue(),
  events,
});

// emit is type-checked against the catalogue: a misspelt type or field does not compile.
export async function onFulfilmentStarted(
  agencyId: string,
  jobId: string,
  fulfilmentId: string,
  providerId: string,
) {
  return webhooks.emit({
    agencyId,
    eventType: 'job_fulfilment_started',
    entityId: jobId,
    metadata: { fulfilmentId, jobId, agencyId, serviceProviderId: providerId, startedAt: Date.now() },
  });
}
