import { z } from 'zod';
import type { EventDefinition } from './event-definition';
import { TEST_EVENT_TYPE } from './event-definition';

/**
 * Metadata of `webhook_test`, the event `POST /config/test` sends without a body. The delivery layer
 * writes the envelope itself; this schema is its published shape, and a test holds the two together.
 */
export const testEventMetadataSchema = z
  .strictObject({
    message: z.string().meta({ description: 'Says that this is a test delivery' }),
    agencyId: z.string().meta({ description: 'The agency whose endpoint is being tested' }),
  })
  .meta({ id: 'WebhookTestMetadata' });

/** Metadata of `webhook_test`. */
export type TestEventMetadata = z.output<typeof testEventMetadataSchema>;

const definition: EventDefinition<typeof TEST_EVENT_TYPE, typeof testEventMetadataSchema, 'agency'> = {
  type: TEST_EVENT_TYPE,
  entityType: 'agency',
  metadata: testEventMetadataSchema,
  description:
    'Sent by `POST /config/test` without a body, to check that the endpoint receives and verifies deliveries. Never retried, never in the delivery log.',
  example: {
    entityId: 'agency_9Wd4Rt',
    createdByRole: 'System',
    metadata: {
      message: 'Test event sent to check that this endpoint receives and verifies webhook deliveries.',
      agencyId: 'agency_9Wd4Rt',
    },
  },
};

/**
 * The definition of `webhook_test`: receivers get it from the test endpoint, so it has a schema, an
 * example and a place in the generated types, but no catalogue holds it (the type is reserved, and
 * nothing emits it). Built as a plain object because `defineEvent` refuses the reserved type.
 */
export const webhookTestEvent = Object.freeze(definition);
