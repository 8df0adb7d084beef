import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UnknownEventTypeError, WebhookError, WebhookValidationError } from '../src/errors';
import { builtInEvents } from '../src/events/built-in-events';
import { ENTITY_TYPES, entityTypeSchema } from '../src/events/entity-types';
import { createEventCatalogue } from '../src/events/event-catalogue';
import { defineEvent } from '../src/events/event-definition';

const jobCreated = {
  jobId: 'job_1',
  agencyId: 'ag_1',
  jobNumber: 1042,
  categoryId: 'cat_plumbing',
  propertyId: 'prop_1',
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
};

const jobCreatedTransfer = {
  ...jobCreated,
  agencyId: 'ag_service_maintenance',
  propertyId: null,
  requestorType: 'tenant',
  requestorInfo: { name: 'Sam', phone: '+27 21 000 0000' },
  originalJobId: 'job_0',
  originalJobNumber: 17,
  originalAgencyId: 'ag_0',
  originalAgencyName: 'Old Agency',
  cancellationReason: 'Transferred to service maintenance',
  propertyRecreated: true,
  transferredToServiceMaintenance: true,
};

const jobCancelled = { jobId: 'job_1', agencyId: 'ag_1', jobNumber: 1042, reason: 'Duplicate' };

const quoteApproved = {
  fulfilmentId: 'ful_1',
  jobId: 'job_1',
  agencyId: 'ag_1',
  jobNumber: 1042,
  serviceProviderId: 'sp_1',
  quoteStatus: 'approved',
};

const propertyCreated = {
  propertyId: 'prop_1',
  agencyId: 'ag_1',
  address: {
    formatted: '12 Long Street, Gardens, Cape Town, Western Cape, 8001',
    street: { name: 'Long Street', number: '12' },
    suburb: 'Gardens',
    city: 'Cape Town',
    province: 'Western Cape',
    postalCode: '8001',
    unitNumber: null,
  },
  estateId: null,
  estateName: null,
  managingAgentId: 'agent_1',
  vacant: false,
};

const ratingSubmitted = {
  fulfilmentId: 'ful_1',
  jobId: 'job_1',
  agencyId: 'ag_1',
  jobNumber: 1042,
  categoryId: 'cat_plumbing',
  serviceProviderId: 'sp_1',
  rating: {
    communication: 5,
    qualityOfQuote: 4,
    qualityOfWork: 5,
    reliability: 4.5,
    review: 'Quick and tidy',
  },
};

/** The five spec shapes: a valid metadata object and the fields that may be null. */
const shapes = [
  {
    eventType: 'job_created',
    metadata: jobCreated,
    nullable: [
      'propertyId',
      'estateId',
      'requestorType',
      'requestorInfo',
      'originalJobId',
      'originalJobNumber',
      'originalAgencyId',
      'originalAgencyName',
      'cancellationReason',
      'propertyRecreated',
      'transferredToServiceMaintenance',
    ],
  },
  { eventType: 'job_cancelled', metadata: jobCancelled, nullable: [] },
  { eventType: 'quote_approved', metadata: quoteApproved, nullable: [] },
  { eventType: 'property_created', metadata: propertyCreated, nullable: ['estateId', 'estateName'] },
  { eventType: 'job_fulfilment_rating_submitted', metadata: ratingSubmitted, nullable: [] },
] as const;

const catalogue = createEventCatalogue();

/** The parent the spec's rules require of two types: the quote's job, the message's thread. */
function requiredParent(eventType: string, metadata: unknown): Record<string, unknown> {
  if (eventType === 'message_sent') return { parentEntityId: 'thread_1' };
  const jobId = (metadata as { jobId?: unknown } | null)?.jobId;
  if (eventType === 'quote_approved' && typeof jobId === 'string') return { parentEntityId: jobId };
  return {};
}

function emitInput(eventType: string, metadata: unknown, extra: Record<string, unknown> = {}) {
  return {
    agencyId: 'ag_1',
    eventType,
    entityId: 'ent_1',
    metadata,
    ...requiredParent(eventType, metadata),
    ...extra,
  };
}

function caught(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

function validationError(action: () => unknown): WebhookValidationError {
  const error = caught(action);
  expect(error).toBeInstanceOf(WebhookValidationError);
  return error as WebhookValidationError;
}

function without(object: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = object;
  return rest;
}

describe('entity types', () => {
  it('are the 13 values of the spec, in its order', () => {
    expect(ENTITY_TYPES).toEqual([
      'job',
      'quote',
      'invoice',
      'approval',
      'property',
      'estate',
      'agent',
      'agency',
      'service_provider',
      'thread',
      'message',
      'user',
      'communications',
    ]);
    expect(entityTypeSchema.safeParse('vendor').success).toBe(false);
  });
});

describe('built-in events', () => {
  it.each([
    ['job_created', 'job'],
    ['job_completed', 'job'],
    ['job_cancelled', 'job'],
    ['property_created', 'property'],
    ['quote_approved', 'quote'],
    ['invoice_approved', 'invoice'],
    ['job_fulfilment_rating_submitted', 'job'],
    ['message_sent', 'message'],
  ])('%s has the fixed entity type %s', (type, entityType) => {
    expect(catalogue.get(type)?.entityType).toBe(entityType);
  });

  it('are exactly the eight event types the spec names', () => {
    expect(builtInEvents).toHaveLength(8);
    expect(catalogue.types).toEqual(builtInEvents.map((def) => def.type));
  });
});

describe('metadata shapes of the five known events', () => {
  it.each(shapes)('$eventType accepts its documented shape', ({ eventType, metadata }) => {
    expect(catalogue.parseEvent(emitInput(eventType, metadata)).metadata).toEqual(metadata);
  });

  it('job_created accepts the transfer path', () => {
    expect(catalogue.parseEvent(emitInput('job_created', jobCreatedTransfer)).metadata).toEqual(
      jobCreatedTransfer,
    );
  });

  const everyField = shapes.flatMap(({ eventType, metadata }) =>
    Object.keys(metadata).map((field) => ({ eventType, metadata, field })),
  );

  it.each(everyField)(
    '$eventType refuses metadata without $field (invalid_metadata)',
    ({ eventType, metadata, field }) => {
      const error = validationError(() =>
        catalogue.parseEvent(emitInput(eventType, without(metadata, field))),
      );
      expect(error.code).toBe('invalid_metadata');
      expect(error.details.issues.map((issue) => issue.path)).toContain(`metadata.${field}`);
    },
  );

  it.each(everyField)(
    '$eventType: null for $field is accepted only where the spec allows it',
    ({ eventType, metadata, field }) => {
      const nullable: readonly string[] = shapes.find((shape) => shape.eventType === eventType)!.nullable;
      const result = (() => {
        try {
          catalogue.parseEvent(emitInput(eventType, { ...metadata, [field]: null }));
          return 'accepted';
        } catch (error) {
          return (error as WebhookError).code;
        }
      })();
      expect(result).toBe(nullable.includes(field) ? 'accepted' : 'invalid_metadata');
    },
  );

  it.each(shapes)('$eventType refuses an unknown metadata field', ({ eventType, metadata }) => {
    const error = validationError(() =>
      catalogue.parseEvent(emitInput(eventType, { ...metadata, extra: 1 })),
    );
    expect(error.code).toBe('invalid_metadata');
  });

  it.each([
    ['a missing requestorType', without(jobCreated, 'requestorType'), false],
    ['an explicit undefined requestorInfo', { ...jobCreated, requestorInfo: undefined }, false],
    ['an object requestorInfo', { ...jobCreated, requestorInfo: { name: 'Sam' } }, true],
    ['a string requestorType', { ...jobCreated, requestorType: 'landlord' }, true],
  ])('job_created with %s: accepted=%s', (_label, metadata, accepted) => {
    const attempt = () => catalogue.parseEvent(emitInput('job_created', metadata));
    if (accepted) expect(attempt).not.toThrow();
    else expect(validationError(attempt).code).toBe('invalid_metadata');
  });

  it.each([
    ['a wrong type', 'job_cancelled', { ...jobCancelled, jobNumber: '1042' }, 'metadata.jobNumber'],
    [
      'an unknown nested field',
      'job_fulfilment_rating_submitted',
      { ...ratingSubmitted, rating: { ...ratingSubmitted.rating, tip: 1 } },
      'metadata.rating',
    ],
    [
      'a missing nested field',
      'property_created',
      { ...propertyCreated, address: { ...propertyCreated.address, street: { name: 'Long Street' } } },
      'metadata.address.street.number',
    ],
    [
      'a number where a string or null is expected',
      'property_created',
      { ...propertyCreated, address: { ...propertyCreated.address, unitNumber: 4 } },
      'metadata.address.unitNumber',
    ],
  ])('refuses %s (%s) with the issue path %s', (_label, eventType, metadata, path) => {
    const error = validationError(() => catalogue.parseEvent(emitInput(eventType, metadata)));
    expect(error.code).toBe('invalid_metadata');
    expect(error.details.issues[0]?.path).toBe(path);
  });

  it.each(['job_completed', 'invoice_approved', 'message_sent'])(
    '%s accepts any object until a schema is registered',
    (eventType) => {
      expect(catalogue.parseEvent(emitInput(eventType, { anything: [1, 'two'] })).metadata).toEqual({
        anything: [1, 'two'],
      });
      expect(
        validationError(() => catalogue.parseEvent(emitInput(eventType, ['not', 'an', 'object']))).code,
      ).toBe('invalid_metadata');
    },
  );
});

describe('parseEvent(): envelope fields', () => {
  it('fills the optional fields with null and the fixed entity type', () => {
    expect(catalogue.parseEvent(emitInput('job_cancelled', jobCancelled))).toEqual({
      agencyId: 'ag_1',
      eventType: 'job_cancelled',
      entityType: 'job',
      entityId: 'ent_1',
      parentEntityId: null,
      createdById: null,
      createdByRole: null,
      metadata: jobCancelled,
      eventId: null,
      createdOn: null,
    });
  });

  it('keeps every field the caller passed', () => {
    const input = emitInput('quote_approved', quoteApproved, {
      entityType: 'quote',
      parentEntityId: 'job_1',
      createdById: 'agent_7',
      createdByRole: 'Agent',
      eventId: 'evt_1',
      createdOn: 1_700_000_000_000,
      entityId: null,
    });
    expect(catalogue.parseEvent(input)).toEqual({ ...input, metadata: quoteApproved });
  });

  const long = 'x'.repeat(201);
  it.each([
    ['an empty agencyId', { agencyId: '' }, 'agencyId'],
    ['a 201-character agencyId', { agencyId: long }, 'agencyId'],
    ['a missing entityId', { entityId: undefined }, 'entityId'],
    ['an empty entityId', { entityId: '' }, 'entityId'],
    ['a 201-character parentEntityId', { parentEntityId: long }, 'parentEntityId'],
    ['a numeric createdById', { createdById: 7 }, 'createdById'],
    ['an unknown createdByRole', { createdByRole: 'Admin' }, 'createdByRole'],
    ['an empty eventId', { eventId: '' }, 'eventId'],
    ['a null eventId', { eventId: null }, 'eventId'],
    ['a negative createdOn', { createdOn: -1 }, 'createdOn'],
    ['a fractional createdOn', { createdOn: 1.5 }, 'createdOn'],
    ['an entityType that differs from the fixed one', { entityType: 'quote' }, 'entityType'],
    ['a null entityType', { entityType: null }, 'entityType'],
    ['an unknown key', { entityID: 'ent_1' }, ''],
  ])('refuses %s with validation_failed', (_label, extra, path) => {
    const error = validationError(() =>
      catalogue.parseEvent(emitInput('job_cancelled', jobCancelled, extra)),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.details.issues[0]?.path).toBe(path);
  });

  it('accepts an entityType equal to the fixed one', () => {
    expect(
      catalogue.parseEvent(emitInput('job_cancelled', jobCancelled, { entityType: 'job' })).entityType,
    ).toBe('job');
  });

  it('reports validation_failed with every issue when both envelope and metadata are wrong', () => {
    const error = validationError(() =>
      catalogue.parseEvent(emitInput('job_cancelled', without(jobCancelled, 'reason'), { agencyId: '' })),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.details.issues.map((issue) => issue.path).sort()).toEqual(['agencyId', 'metadata.reason']);
  });

  it.each([
    ['a string', 'job_created'],
    ['null', null],
    ['an array', []],
    ['an object without eventType', { agencyId: 'ag_1' }],
    ['a numeric eventType', { eventType: 3 }],
  ])('refuses %s as input with validation_failed', (_label, input) => {
    expect(validationError(() => catalogue.parseEvent(input)).code).toBe('validation_failed');
  });

  it('throws UnknownEventTypeError for an event type not in the catalogue', () => {
    const error = caught(() => catalogue.parseEvent(emitInput('job_fulfilment_started', {})));
    expect(error).toBeInstanceOf(UnknownEventTypeError);
    expect((error as UnknownEventTypeError).eventType).toBe('job_fulfilment_started');
  });
});

describe('defineEvent() and createEventCatalogue()', () => {
  const started = defineEvent({
    type: 'job_fulfilment_started',
    entityType: 'job',
    metadata: z.strictObject({ fulfilmentId: z.string(), startedAt: z.coerce.number() }),
    description: 'A service provider started work on a job.',
  });
  const noted = defineEvent({ type: 'note_added', metadata: z.strictObject({ text: z.string() }) });
  const extended = createEventCatalogue([started, noted]);

  it('adds host events after the built-in ones', () => {
    expect(extended.types).toEqual([
      ...builtInEvents.map((def) => def.type),
      'job_fulfilment_started',
      'note_added',
    ]);
    expect(extended.has('note_added')).toBe(true);
    expect(catalogue.has('note_added')).toBe(false);
  });

  it("returns the metadata schema's output (transforms applied)", () => {
    const parsed = extended.parseEvent(
      emitInput('job_fulfilment_started', { fulfilmentId: 'ful_1', startedAt: '17' }),
    );
    expect(parsed.metadata).toEqual({ fulfilmentId: 'ful_1', startedAt: 17 });
    expect(parsed.entityType).toBe('job');
  });

  it('requires entityType on emit when the definition fixes none', () => {
    expect(
      validationError(() => extended.parseEvent(emitInput('note_added', { text: 'hi' }))).details.issues[0]
        ?.path,
    ).toBe('entityType');
    expect(
      extended.parseEvent(emitInput('note_added', { text: 'hi' }, { entityType: 'thread' })).entityType,
    ).toBe('thread');
  });

  it('lets a later definition replace an earlier one of the same type, keeping its place', () => {
    const completed = defineEvent({
      type: 'job_completed',
      entityType: 'job',
      metadata: z.strictObject({ jobId: z.string() }),
    });
    const withSchema = createEventCatalogue([completed]);
    expect(withSchema.types).toEqual(catalogue.types);
    expect(withSchema.get('job_completed')).toBe(completed);
    expect(
      validationError(() => withSchema.parseEvent(emitInput('job_completed', { anything: 1 }))).code,
    ).toBe('invalid_metadata');
  });

  it('leaves the built-ins out when includeBuiltIns is false', () => {
    const only = createEventCatalogue([noted], { includeBuiltIns: false });
    expect(only.types).toEqual(['note_added']);
    expect(() => only.parseEvent(emitInput('job_cancelled', jobCancelled))).toThrow(UnknownEventTypeError);
  });

  it('refuses a metadata schema whose output is not an object', () => {
    const scalar = defineEvent({ type: 'odd_event', entityType: 'job', metadata: z.string() });
    const error = validationError(() =>
      createEventCatalogue([scalar]).parseEvent(emitInput('odd_event', 'text')),
    );
    expect(error.code).toBe('invalid_metadata');
  });

  it.each([
    ['JobStarted'],
    ['job-started'],
    [''],
    ['_job'],
    ['job__started'],
    ['x'.repeat(101)],
    ['webhook_test'],
  ])('refuses the event type %j with invalid_event_definition', (type) => {
    const error = caught(() => defineEvent({ type, metadata: z.strictObject({}) }));
    expect(error).toBeInstanceOf(WebhookError);
    expect((error as WebhookError).code).toBe('invalid_event_definition');
  });

  it('refuses an entity type outside the 13', () => {
    const error = caught(() =>
      defineEvent({ type: 'job_started', entityType: 'vendor' as 'job', metadata: z.strictObject({}) }),
    );
    expect((error as WebhookError).code).toBe('invalid_event_definition');
  });

  it('refuses a hand-written definition without a zod schema', () => {
    const error = caught(() =>
      createEventCatalogue([{ type: 'job_started', entityType: 'job', metadata: {} as z.ZodType }]),
    );
    expect((error as WebhookError).code).toBe('invalid_event_definition');
  });
});

describe('assertKnownTypes()', () => {
  it('accepts known types, including an empty list', () => {
    expect(() => catalogue.assertKnownTypes(['job_created', 'message_sent'])).not.toThrow();
    expect(() => catalogue.assertKnownTypes([])).not.toThrow();
  });

  it('throws UnknownEventTypeError naming the first unknown type', () => {
    const error = caught(() => catalogue.assertKnownTypes(['job_created', 'job_startd', 'nope']));
    expect(error).toBeInstanceOf(UnknownEventTypeError);
    expect((error as UnknownEventTypeError).eventType).toBe('job_startd');
  });
});
