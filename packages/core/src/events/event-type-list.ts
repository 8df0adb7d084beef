import { z } from 'zod';
import { entityTypeSchema } from './entity-types';
import type { EventCatalogue } from './event-catalogue';

/** One event type an agency can subscribe to, as `GET /event-types` lists it. */
export const eventTypeSummarySchema = z
  .object({
    eventType: z.string().meta({ description: 'The event type, as written in subscriptions.' }),
    description: z
      .string()
      .nullable()
      .meta({ description: 'What the event means; null when the catalogue gives no description.' }),
    entityType: entityTypeSchema
      .nullable()
      .meta({ description: 'The entity type every event of this type is about; null when it varies.' }),
  })
  .meta({ id: 'EventTypeSummary' });
export type EventTypeSummary = z.infer<typeof eventTypeSummarySchema>;

/** Answer of `GET /event-types`: the catalogue, in its order. */
export const eventTypeListSchema = z
  .object({ eventTypes: z.array(eventTypeSummarySchema) })
  .meta({ id: 'EventTypeList' });
export type EventTypeList = z.infer<typeof eventTypeListSchema>;

/** The subscribable event types of a catalogue with their descriptions, for a settings page. */
export function listEventTypes(catalogue: EventCatalogue): EventTypeList {
  return {
    eventTypes: catalogue.definitions.map((definition) => ({
      eventType: definition.type,
      description: definition.description ?? null,
      entityType: definition.entityType,
    })),
  };
}
