import { buildEventJsonSchema } from '@svc/webhooks-core/schemas';
import type { ApiRoute, JsonSchemaSource } from './route-contract';

/*
 * The event catalogue with each type's JSON Schema and example, for a page that documents the events an
 * agency can subscribe to (the portal's "Event types" tab). Built from core's catalogue, which already
 * makes both for the generated reference; nothing is stored.
 */

const nullableString = { type: ['string', 'null'] };

/** The answer's shape, written as JSON Schema: the per-type schemas inside are documents themselves. */
const eventTypeSchemaListSchema: JsonSchemaSource = {
  toJSONSchema: () => ({
    type: 'object',
    required: ['eventTypes'],
    properties: {
      eventTypes: {
        type: 'array',
        description: 'Every event type, in the catalogue’s order.',
        items: {
          type: 'object',
          required: ['eventType', 'description', 'entityType', 'schema', 'example'],
          properties: {
            eventType: { type: 'string', description: 'The event type, as written in subscriptions.' },
            description: { ...nullableString, description: 'What the event means; null when not given.' },
            entityType: {
              ...nullableString,
              description: 'The entity type every event of this type is about; null when it varies.',
            },
            schema: {
              type: 'object',
              description:
                'The JSON Schema (2020-12) of the delivery body a receiver gets for this type: the envelope with the type’s `metadata`, its example in `examples`.',
            },
            example: {
              type: ['object', 'null'],
              description: 'An example delivery body of this type; null when the catalogue gives none.',
            },
          },
        },
      },
    },
  }),
};

/** `GET /event-types/schemas`: the catalogue with each type's schema and example. */
export const listEventTypeSchemas: ApiRoute = {
  method: 'get',
  path: '/event-types/schemas',
  operationId: 'listWebhookEventTypeSchemas',
  summary: 'List the event types with their schemas',
  description:
    'Every event type of `GET /event-types`, in the same order, with the JSON Schema (2020-12) of the delivery body a receiver gets for it (fields, types, which are required) and an example body: what an events reference page shows. The same for every agency.',
  responses: [
    { status: 200, description: 'The event types with their schemas.', schema: eventTypeSchemaListSchema },
  ],
  errors: [],
  async handle(service) {
    return {
      status: 200,
      body: {
        eventTypes: service.events.definitions.map((definition) => {
          // The schema carries the example envelope at a fixed time, so every answer is the same.
          const schema = buildEventJsonSchema(definition);
          const examples = schema.examples as readonly unknown[] | undefined;
          return {
            eventType: definition.type,
            description: definition.description ?? null,
            entityType: definition.entityType,
            schema,
            example: examples?.[0] ?? null,
          };
        }),
      },
    };
  },
};
