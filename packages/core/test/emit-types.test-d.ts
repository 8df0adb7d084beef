import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { EntityType } from '../src/events/entity-types';
import { createEventCatalogue, type EmitInput, type EventTypeOf } from '../src/events/event-catalogue';
import { defineEvent } from '../src/events/event-definition';

const jobFulfilmentStarted = defineEvent({
  type: 'job_fulfilment_started',
  entityType: 'job',
  metadata: z.strictObject({ fulfilmentId: z.string(), startedAt: z.number() }),
});
const noteAdded = defineEvent({ type: 'note_added', metadata: z.strictObject({ text: z.string() }) });
const jobCompletedWithSchema = defineEvent({
  type: 'job_completed',
  entityType: 'job',
  metadata: z.strictObject({ jobId: z.string(), completedAt: z.number() }),
});

const events = createEventCatalogue([jobFulfilmentStarted, noteAdded, jobCompletedWithSchema]);
type Input = EmitInput<typeof events>;

/** Stands in for `webhooks.emit`: only its parameter type matters here. */
declare function emit(input: Input): void;

const jobCancelled = { jobId: 'job_1', agencyId: 'ag_1', jobNumber: 1042, reason: 'Duplicate' };

describe('EmitInput', () => {
  it('knows the built-in and the registered event types', () => {
    expectTypeOf<EventTypeOf<typeof events>>().toEqualTypeOf<
      | 'job_created'
      | 'job_completed'
      | 'job_cancelled'
      | 'property_created'
      | 'quote_approved'
      | 'invoice_approved'
      | 'job_fulfilment_rating_submitted'
      | 'message_sent'
      | 'job_fulfilment_started'
      | 'note_added'
    >();
  });

  it('accepts the documented job_cancelled metadata and refuses a wrong shape', () => {
    emit({ agencyId: 'ag_1', eventType: 'job_cancelled', entityId: 'job_1', metadata: jobCancelled });
    // @ts-expect-error jobNumber must be a number
    emit({
      agencyId: 'ag_1',
      eventType: 'job_cancelled',
      entityId: 'job_1',
      metadata: { ...jobCancelled, jobNumber: '1042' },
    });
    // @ts-expect-error reason is required
    emit({
      agencyId: 'ag_1',
      eventType: 'job_cancelled',
      entityId: 'job_1',
      metadata: { jobId: 'job_1', agencyId: 'ag_1', jobNumber: 1042 },
    });
  });

  it('accepts a custom defineEvent type with its own metadata', () => {
    emit({
      agencyId: 'ag_1',
      eventType: 'job_fulfilment_started',
      entityId: 'job_1',
      metadata: { fulfilmentId: 'ful_1', startedAt: 1_700_000_000_000 },
    });
    // @ts-expect-error startedAt is missing
    emit({
      agencyId: 'ag_1',
      eventType: 'job_fulfilment_started',
      entityId: 'job_1',
      metadata: { fulfilmentId: 'ful_1' },
    });
  });

  it('types entityType from the definition: only the fixed value, or required when none is fixed', () => {
    emit({
      agencyId: 'ag_1',
      eventType: 'job_cancelled',
      entityType: 'job',
      entityId: 'job_1',
      metadata: jobCancelled,
    });
    // @ts-expect-error job_cancelled is always about a job
    emit({
      agencyId: 'ag_1',
      eventType: 'job_cancelled',
      entityType: 'quote',
      entityId: 'job_1',
      metadata: jobCancelled,
    });
    emit({
      agencyId: 'ag_1',
      eventType: 'note_added',
      entityType: 'thread',
      entityId: 't_1',
      metadata: { text: 'hi' },
    });
    // @ts-expect-error note_added fixes no entity type, so emit must name one
    emit({ agencyId: 'ag_1', eventType: 'note_added', entityId: 't_1', metadata: { text: 'hi' } });
  });

  it('uses the last definition given for a type', () => {
    type Completed = Extract<Input, { eventType: 'job_completed' }>;
    expectTypeOf<Completed['metadata']>().toEqualTypeOf<{ jobId: string; completedAt: number }>();
  });

  it('requires present-but-any requestorType and requestorInfo on job_created', () => {
    type Created = Extract<Input, { eventType: 'job_created' }>['metadata'];
    expectTypeOf<Created['requestorType']>().toEqualTypeOf<unknown>();
    expectTypeOf<Created['propertyId']>().toEqualTypeOf<string | null>();
    expectTypeOf<Created['jobNumber']>().toEqualTypeOf<number>();
  });

  it('falls back to loose types for the default catalogue type', () => {
    expectTypeOf<EmitInput['eventType']>().toEqualTypeOf<string>();
    expectTypeOf<EmitInput['entityType']>().toEqualTypeOf<EntityType | undefined>();
  });
});
