import { z } from 'zod';
import { createdByRoleSchema, entityTypeSchema } from './entity-types';
import type { EventDefinition } from './event-definition';
import { buildExampleEnvelope, EXAMPLE_TIME } from './event-example';

/*
 * The envelope of one event type, narrowed from the generic one: `eventType` is the type's literal,
 * `entityType` its fixed entity type, `metadata` its schema. The generic envelope schema
 * (`webhookEnvelopeSchema`) sits in the delivery layer, above this one, so the field list is written out
 * here; a test holds the two to the same keys, order and field types.
 */

/** A JSON Schema document (2020-12), as {@link buildEventJsonSchema} returns it. */
export type EventJsonSchema = { [keyword: string]: unknown };

const envelopeSchemas = new WeakMap<EventDefinition, z.ZodObject>();

/**
 * The zod schema of one event type's envelope: the delivery body a receiver gets for it, fields in the
 * spec's order. Built once per definition.
 *
 * @example
 * ```ts
 * const schema = buildEventEnvelopeSchema(jobFulfilmentStarted);
 * schema.parse(JSON.parse(rawBody)); // a receiver's own, stricter check
 * ```
 */
export function buildEventEnvelopeSchema(definition: EventDefinition): z.ZodObject {
  let schema = envelopeSchemas.get(definition);
  if (!schema) {
    schema = envelopeSchemaOf(definition);
    envelopeSchemas.set(definition, schema);
  }
  return schema;
}

function envelopeSchemaOf(definition: EventDefinition): z.ZodObject {
  const schema = z.object({
    webhookId: z.string().meta({
      description:
        '`whdel_{deliveryId}`: the same on every attempt and replay of one delivery; deduplicate on it',
    }),
    eventType: z.literal(definition.type),
    entityType: definition.entityType === null ? entityTypeSchema : z.literal(definition.entityType),
    entityId: z
      .string()
      .nullable()
      .meta({ description: 'The affected entity; fetch its current state from the API' }),
    parentEntityId: z.string().nullable().meta({ description: 'The parent entity when relevant, else null' }),
    createdById: z.string().nullable().meta({ description: 'The user who caused the event, else null' }),
    createdByRole: createdByRoleSchema.nullable(),
    metadata: definition.metadata,
    createdOn: z.number().int().meta({ description: 'Epoch ms when the event was recorded' }),
    deliveredAt: z
      .number()
      .int()
      .meta({ description: 'Epoch ms of this attempt; equals t of the signature' }),
    attempt: z.number().int().min(1).meta({ description: '1 for the first attempt, then counts up' }),
  });
  return definition.description === undefined ? schema : schema.meta({ description: definition.description });
}

/**
 * The JSON Schema (2020-12) of one event type's envelope, generated from its zod schemas, with the
 * event type as `title` and its example envelope (at a fixed time) in `examples`. Schemas that carry a
 * zod `id` (such as `JobCreatedMetadata`) are in `$defs`. Parts zod cannot express in JSON Schema (a
 * transform) are left open (`{}`) rather than failing.
 *
 * @example
 * ```ts
 * const schema = buildEventJsonSchema(jobFulfilmentStarted);
 * writeFileSync('job_fulfilment_started.schema.json', JSON.stringify(schema, null, 2));
 * ```
 */
export function buildEventJsonSchema(definition: EventDefinition): EventJsonSchema {
  const { $schema, description, ...generated } = z.toJSONSchema(buildEventEnvelopeSchema(definition), {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as EventJsonSchema;
  const examples =
    definition.example === undefined
      ? {}
      : { examples: [buildExampleEnvelope(definition, { now: EXAMPLE_TIME })] };
  return {
    $schema,
    title: definition.type,
    ...(description === undefined ? {} : { description }),
    ...generated,
    ...examples,
  };
}
