import { z } from 'zod';
import {
  type CreatedByRole,
  createdByRoleSchema,
  ID_MAX_LENGTH,
  type ParsedEvent,
} from '../events/event-catalogue';
import { EVENT_TYPE_MAX_LENGTH, EVENT_TYPE_PATTERN } from '../events/event-definition';
import type { AttemptRecord, AttemptTrigger } from './attempt-record';

/** States of a delivery record (spec: States and transitions). */
export const deliveryStatusSchema = z.enum(['pending', 'success', 'failed']).meta({
  description: '`pending` while attempts remain, `success` after a 2xx, `failed` when attempts ran out.',
});
export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;

/**
 * A delivery as the stores hold it: one event to one agency's endpoint, with its
 * attempt history folded into the `last*` fields. Every timestamp is epoch ms.
 *
 * @remarks Stores persist and return every field as given; they interpret only
 * `agencyId`, `eventId`, `status`, `attempt` and `id` (ordering, filters, CAS),
 * and `eventType`, `entityId` and `createdAt` (the list's filters).
 */
export interface DeliveryRecord {
  /** Time-ordered id (UUIDv7): sorting ids sorts deliveries by creation. */
  id: string;
  agencyId: string;
  /** Id of the originating event; unique per agency (emit is idempotent on it). */
  eventId: string;
  eventType: string;
  entityType: string;
  entityId: string | null;
  parentEntityId: string | null;
  createdById: string | null;
  createdByRole: CreatedByRole | null;
  /** Event-specific metadata, validated against the catalogue at emit. */
  payload: Record<string, unknown>;
  /** When the original event was recorded. */
  createdOn: number;
  /** When this delivery record was created. */
  createdAt: number;
  status: DeliveryStatus;
  /** Attempts made so far; 0 before the first. Continues across replays. */
  attempt: number;
  /** Attempts allowed; a replay raises it to `attempt + 1` (one more attempt). */
  maxAttempts: number;
  /** When the next attempt is due; null when none is scheduled. */
  nextRetryAt: number | null;
  lastAttemptAt: number | null;
  /** When the successful attempt was made; null until then. */
  deliveredAt: number | null;
  lastResponseCode: number | null;
  lastErrorMessage: string | null;
  /** First bytes (≤ 4 KiB) of the receiver's last response body, for troubleshooting. */
  lastResponseExcerpt: string | null;
  /**
   * What the next attempt counts as in the attempt history: `automatic`, or the
   * trigger of the replay that made the delivery pending again. Each attempt
   * resets it to `automatic`.
   */
  nextAttemptTrigger: AttemptTrigger;
}

/**
 * The fields one attempt (or a replay, or an abandonment) changes. Produced by the
 * pure state machine, written by {@link WebhookStore.updateDelivery} as a whole.
 */
export type DeliveryUpdate = Pick<
  DeliveryRecord,
  | 'status'
  | 'attempt'
  | 'maxAttempts'
  | 'nextRetryAt'
  | 'lastAttemptAt'
  | 'deliveredAt'
  | 'lastResponseCode'
  | 'lastErrorMessage'
  | 'lastResponseExcerpt'
  | 'nextAttemptTrigger'
> & {
  /**
   * The attempt this update records, appended to the delivery's attempt history
   * by the same compare-and-set (so it is appended exactly when the update is
   * applied); absent when the update records no attempt (a replay, an abandonment).
   * Not a field of the record.
   */
  recordedAttempt?: AttemptRecord;
};

const epochMs = z.number().int().meta({ description: 'Epoch milliseconds' });

/** Summary form of a delivery (list entries), exactly the spec's fields. */
export const deliverySummarySchema = z
  .object({
    id: z.string(),
    eventType: z.string(),
    entityType: z.string(),
    entityId: z.string().nullable(),
    status: deliveryStatusSchema,
    attempt: z.number().int(),
    lastAttemptAt: epochMs.nullable(),
    deliveredAt: epochMs.nullable(),
    lastResponseCode: z.number().int().nullable(),
    createdAt: epochMs.meta({
      description: 'When the delivery was created: the time the list’s `since` and `until` filter on.',
    }),
  })
  .meta({ id: 'DeliverySummary' });
export type DeliverySummary = z.infer<typeof deliverySummarySchema>;

/** Detail form of a delivery: the summary plus the spec's detail fields. */
export const deliveryDetailSchema = deliverySummarySchema
  .extend({
    webhookId: z.string().meta({ description: '`whdel_{id}`; the receiver’s idempotency key' }),
    eventId: z.string(),
    parentEntityId: z.string().nullable(),
    createdById: z.string().nullable(),
    createdByRole: createdByRoleSchema.nullable(),
    payload: z.record(z.string(), z.unknown()),
    maxAttempts: z.number().int(),
    nextRetryAt: epochMs.nullable(),
    lastErrorMessage: z.string().nullable(),
    createdOn: epochMs,
    lastResponseExcerpt: z.string().nullable(),
    pausedUntil: epochMs.nullable().meta({
      description:
        'While the endpoint’s circuit breaker holds this pending delivery (its receiver failed too often in a row): the end of the pause, which `nextRetryAt` then shows too. A replay, a bulk recovery or a successful test send ends it at once. Null when nothing holds it.',
    }),
  })
  .meta({ id: 'DeliveryDetail' });
export type DeliveryDetail = z.infer<typeof deliveryDetailSchema>;

/** Plain decimal digits, as a query string carries a number: no sign, point, exponent, radix prefix or space. */
const DECIMAL_DIGITS = /^[0-9]+$/;

/**
 * A whole number read from a query string, checked by `number`. A string is
 * taken only as plain decimal digits: `Number()` (and so `z.coerce`) would also
 * read `1e1`, `0x10`, ` 10 `, `+5` and `10.0`, each a different spelling a
 * client did not mean or a cache would key apart. A number passes through, for
 * callers of the service who hand over a parsed query.
 */
function queryInteger(number: z.ZodNumber) {
  return z.preprocess((value, ctx) => {
    if (typeof value !== 'string') return value;
    if (DECIMAL_DIGITS.test(value)) return Number(value);
    ctx.addIssue({ code: 'custom', message: 'Write the number in plain decimal digits, such as 20.' });
    return z.NEVER;
  }, number);
}

/** An epoch-ms bound of the list's time window, as {@link queryInteger} reads it. */
const queryEpochMs = () => queryInteger(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));

/** `limit` (1..100, default 20) and the opaque `cursor`: the paging of every newest-first list. */
export const listPageQueryFields = {
  // prefault, not default: it feeds 20 through the preprocess like a sent value, and the
  // OpenAPI document still shows `default: 20` (a transform's own default is output-only).
  limit: queryInteger(z.number().int().min(1).max(100)).prefault(20),
  cursor: z.string().min(1).max(200).optional(),
};

/**
 * Query of the delivery list: filters `status`, `eventType`, `entityId`, and the
 * creation window `since` (inclusive) to `until` (exclusive), both epoch ms on the
 * delivery's `createdAt`; `limit` 1..100 (default 20); opaque `cursor`. Filters
 * combine with AND. `since` equal to `until` is an empty window, `since` after
 * `until` a validation error (issues at both).
 *
 * @remarks `eventType` is checked for syntax only: filtering by a type the agency
 * does not subscribe to (any more) is how its old deliveries are found. The cursor
 * only marks a position in the newest-first order: send the same filters with it.
 */
export const listDeliveriesQuerySchema = z
  .strictObject({
    status: deliveryStatusSchema.optional(),
    eventType: z
      .string()
      .max(EVENT_TYPE_MAX_LENGTH)
      .regex(EVENT_TYPE_PATTERN, { error: 'Write an event type in snake_case, such as job_created.' })
      .optional(),
    entityId: z.string().min(1).max(ID_MAX_LENGTH).optional(),
    since: queryEpochMs().optional(),
    until: queryEpochMs().optional(),
    ...listPageQueryFields,
  })
  .superRefine((query, ctx) => {
    if (query.since === undefined || query.until === undefined || query.since <= query.until) return;
    // Both fields carry the issue: either may be the one the caller got wrong.
    const message = `since (${query.since}) is after until (${query.until}): since is inclusive, until exclusive.`;
    ctx.addIssue({ code: 'custom', path: ['since'], message });
    ctx.addIssue({ code: 'custom', path: ['until'], message });
  });
export type ListDeliveriesQuery = z.input<typeof listDeliveriesQuerySchema>;

/** Response of the delivery list; `nextCursor` is null on the last page. */
export const deliveryListSchema = z
  .object({
    deliveries: z.array(deliverySummarySchema),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: 'DeliveryList' });
export type DeliveryList = z.infer<typeof deliveryListSchema>;

/** Response of a replay request. */
export const replayResultSchema = z
  .object({ message: z.string(), deliveryId: z.string() })
  .meta({ id: 'ReplayResult' });
export type ReplayResult = z.infer<typeof replayResultSchema>;

/** `whdel_{deliveryId}`: the same on every attempt and replay of one delivery. */
export function webhookIdOf(deliveryId: string): string {
  return `whdel_${deliveryId}`;
}

/** The list-entry view of a record. */
export function toDeliverySummary(record: DeliveryRecord): DeliverySummary {
  return {
    id: record.id,
    eventType: record.eventType,
    entityType: record.entityType,
    entityId: record.entityId,
    status: record.status,
    attempt: record.attempt,
    lastAttemptAt: record.lastAttemptAt,
    deliveredAt: record.deliveredAt,
    lastResponseCode: record.lastResponseCode,
    createdAt: record.createdAt,
  };
}

/** The detail view of a record as stored (the service applies the breaker's hold: `service/circuit-access.ts`). */
export function toDeliveryDetail(record: DeliveryRecord): DeliveryDetail {
  return {
    ...toDeliverySummary(record),
    webhookId: webhookIdOf(record.id),
    eventId: record.eventId,
    parentEntityId: record.parentEntityId,
    createdById: record.createdById,
    createdByRole: record.createdByRole,
    payload: record.payload,
    maxAttempts: record.maxAttempts,
    nextRetryAt: record.nextRetryAt,
    lastErrorMessage: record.lastErrorMessage,
    createdOn: record.createdOn,
    lastResponseExcerpt: record.lastResponseExcerpt,
    pausedUntil: null,
  };
}

/** A new pending delivery of a validated event, due now (its first attempt). */
export function newDeliveryRecord(
  event: ParsedEvent,
  init: { id: string; now: number; maxAttempts: number },
): DeliveryRecord {
  return {
    id: init.id,
    agencyId: event.agencyId,
    // Without a host-supplied event id, the delivery stands for its own event.
    eventId: event.eventId ?? `evt_${init.id}`,
    eventType: event.eventType,
    entityType: event.entityType,
    entityId: event.entityId,
    parentEntityId: event.parentEntityId,
    createdById: event.createdById,
    createdByRole: event.createdByRole,
    payload: event.metadata,
    createdOn: event.createdOn ?? init.now,
    createdAt: init.now,
    status: 'pending',
    attempt: 0,
    maxAttempts: init.maxAttempts,
    nextRetryAt: init.now,
    lastAttemptAt: null,
    deliveredAt: null,
    lastResponseCode: null,
    lastErrorMessage: null,
    lastResponseExcerpt: null,
    nextAttemptTrigger: 'automatic',
  };
}
