import { z } from 'zod';
import { createdByRoleSchema, type DeliveryRecord, webhookIdOf } from './delivery';

/** Event type of the envelope POST /config/test sends; reserved, never in a catalogue. */
export const TEST_EVENT_TYPE = 'webhook_test';

/** The envelope's keys in the spec's order, which is also the order of the serialised JSON. */
export const ENVELOPE_FIELDS = [
  'webhookId',
  'eventType',
  'entityType',
  'entityId',
  'parentEntityId',
  'createdById',
  'createdByRole',
  'metadata',
  'createdOn',
  'deliveredAt',
  'attempt',
] as const;

/**
 * The JSON body of every delivery (spec: Delivery envelope), fields in the spec's
 * order: the single source of {@link WebhookEnvelope}, the OpenAPI document and
 * receivers' tests.
 */
export const webhookEnvelopeSchema = z
  .object({
    webhookId: z.string().meta({ description: '`whdel_{deliveryId}`; the idempotency key for receivers' }),
    eventType: z.string(),
    entityType: z.string(),
    entityId: z.string().nullable(),
    parentEntityId: z.string().nullable(),
    createdById: z.string().nullable(),
    createdByRole: createdByRoleSchema.nullable(),
    metadata: z.record(z.string(), z.unknown()),
    createdOn: z.number().int().meta({ description: 'Epoch ms when the event was recorded' }),
    deliveredAt: z.number().int().meta({ description: 'Epoch ms when this attempt was made' }),
    attempt: z.number().int().min(1),
  })
  .meta({ id: 'WebhookEnvelope' });

/** The JSON body of every delivery; `webhookId` is `whdel_{deliveryId}`, the same on every attempt and replay. */
export type WebhookEnvelope = z.infer<typeof webhookEnvelopeSchema>;

/**
 * The envelope of one attempt of a delivery.
 *
 * @param attempt - the number of this attempt (the record's `attempt` + 1).
 * @param deliveredAt - epoch ms of this attempt; also the signature's `t`.
 */
export function buildEnvelope(record: DeliveryRecord, attempt: number, deliveredAt: number): WebhookEnvelope {
  return {
    webhookId: webhookIdOf(record.id),
    eventType: record.eventType,
    entityType: record.entityType,
    entityId: record.entityId,
    parentEntityId: record.parentEntityId,
    createdById: record.createdById,
    createdByRole: record.createdByRole,
    metadata: record.payload,
    createdOn: record.createdOn,
    deliveredAt,
    attempt,
  };
}

/**
 * The exact body bytes of an attempt, keys in the spec's order whatever order the
 * given object has. Serialise once per attempt and sign the result: receivers
 * verify the raw body, so the bytes signed must be the bytes sent.
 */
export function serializeEnvelope(envelope: WebhookEnvelope): string {
  const ordered: WebhookEnvelope = {
    webhookId: envelope.webhookId,
    eventType: envelope.eventType,
    entityType: envelope.entityType,
    entityId: envelope.entityId,
    parentEntityId: envelope.parentEntityId,
    createdById: envelope.createdById,
    createdByRole: envelope.createdByRole,
    metadata: envelope.metadata,
    createdOn: envelope.createdOn,
    deliveredAt: envelope.deliveredAt,
    attempt: envelope.attempt,
  };
  return JSON.stringify(ordered);
}

/**
 * The envelope POST /config/test sends: `webhook_test` about the agency itself,
 * authored by the system, attempt 1. It has no delivery record, so `webhookId`
 * is `whdel_test_{testId}` and cannot collide with a real delivery's.
 *
 * @param testId - a fresh id per test (e.g. `newId()`).
 * @param now - epoch ms; both `createdOn` and `deliveredAt`.
 */
export function buildTestEnvelope(agencyId: string, testId: string, now: number): WebhookEnvelope {
  return {
    webhookId: webhookIdOf(`test_${testId}`),
    eventType: TEST_EVENT_TYPE,
    entityType: 'agency',
    entityId: agencyId,
    parentEntityId: null,
    createdById: null,
    createdByRole: 'System',
    metadata: {
      message: 'Test event sent to check that this endpoint receives and verifies webhook deliveries.',
      agencyId,
    },
    createdOn: now,
    deliveredAt: now,
    attempt: 1,
  };
}
