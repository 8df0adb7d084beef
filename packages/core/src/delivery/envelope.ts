import { z } from 'zod';
import { createdByRoleSchema } from '../events/event-catalogue';
import { TEST_EVENT_TYPE } from '../events/event-definition';
import { type DeliveryRecord, webhookIdOf } from './delivery';

/** Event type of the envelope POST /config/test sends; reserved, never in a catalogue. */

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

/** Strings JSON.stringify writes unchanged between quotes: no quote, backslash, control character or surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes are exactly what this excludes.
const JSON_PLAIN_STRING = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function jsonString(value: string): string {
  return JSON_PLAIN_STRING.test(value) ? `"${value}"` : JSON.stringify(value);
}

function jsonNullableString(value: string | null): string {
  return value === null ? 'null' : jsonString(value);
}

/** JSON.stringify's rendering of a number (non-finite numbers become null). */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? `${value}` : 'null';
}

/**
 * The exact body bytes of an attempt, keys in the spec's order whatever order the
 * given object has. Serialise once per attempt and sign the result: receivers
 * verify the raw body, so the bytes signed must be the bytes sent.
 *
 * The output is what `JSON.stringify` gives for the envelope with its keys in
 * that order (a property test holds it to that). It is assembled field by field;
 * only the free-form metadata goes through JSON.stringify.
 */
export function serializeEnvelope(envelope: WebhookEnvelope): string {
  // Measured: docs/benchmarks.md "Envelope serialisation" (1.8–2.8× JSON.stringify, ~1.7 µs of a ~60 µs attempt).
  return (
    `{"webhookId":${jsonString(envelope.webhookId)}` +
    `,"eventType":${jsonString(envelope.eventType)}` +
    `,"entityType":${jsonString(envelope.entityType)}` +
    `,"entityId":${jsonNullableString(envelope.entityId)}` +
    `,"parentEntityId":${jsonNullableString(envelope.parentEntityId)}` +
    `,"createdById":${jsonNullableString(envelope.createdById)}` +
    `,"createdByRole":${jsonNullableString(envelope.createdByRole)}` +
    `,"metadata":${JSON.stringify(envelope.metadata)}` +
    `,"createdOn":${jsonNumber(envelope.createdOn)}` +
    `,"deliveredAt":${jsonNumber(envelope.deliveredAt)}` +
    `,"attempt":${jsonNumber(envelope.attempt)}}`
  );
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
