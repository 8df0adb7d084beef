import type {
  AttemptRecord,
  AttemptTrigger,
  CreatedByRole,
  DeliveryExpectation,
  DeliveryRecord,
  DeliveryStatus,
  DeliveryUpdate,
} from '@svc/webhooks-core';

/** The record's columns, in the order every SELECT and RETURNING lists them. */
export const DELIVERY_COLUMNS =
  'id, agency_id, event_id, event_type, entity_type, entity_id, parent_entity_id, created_by_id, ' +
  'created_by_role, payload, created_on, created_at, status, attempt, max_attempts, next_retry_at, ' +
  'last_attempt_at, delivered_at, last_response_code, last_error_message, last_response_excerpt, ' +
  'next_attempt_trigger';

/**
 * A delivery row as node-postgres returns it: bigint columns arrive as strings
 * (pg does not narrow int8 to number by default), `json` arrives parsed.
 */
export interface DeliveryRow {
  id: string;
  agency_id: string;
  event_id: string;
  event_type: string;
  entity_type: string;
  entity_id: string | null;
  parent_entity_id: string | null;
  created_by_id: string | null;
  created_by_role: string | null;
  payload: Record<string, unknown>;
  created_on: string;
  created_at: string;
  status: string;
  attempt: number;
  max_attempts: number;
  next_retry_at: string | null;
  last_attempt_at: string | null;
  delivered_at: string | null;
  last_response_code: number | null;
  last_error_message: string | null;
  last_response_excerpt: string | null;
  next_attempt_trigger: string;
}

/** A nullable bigint column as epoch ms: they fit in a double exactly (up to 2^53), so Number() loses nothing. */
export function toMs(value: string | null): number | null {
  return value === null ? null : Number(value);
}

/** The record a row holds. */
export function toDeliveryRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    agencyId: row.agency_id,
    eventId: row.event_id,
    eventType: row.event_type,
    entityType: row.entity_type,
    entityId: row.entity_id,
    parentEntityId: row.parent_entity_id,
    createdById: row.created_by_id,
    createdByRole: row.created_by_role as CreatedByRole | null,
    payload: row.payload,
    createdOn: Number(row.created_on),
    createdAt: Number(row.created_at),
    status: row.status as DeliveryStatus,
    attempt: row.attempt,
    maxAttempts: row.max_attempts,
    nextRetryAt: toMs(row.next_retry_at),
    lastAttemptAt: toMs(row.last_attempt_at),
    deliveredAt: toMs(row.delivered_at),
    lastResponseCode: row.last_response_code,
    lastErrorMessage: row.last_error_message,
    lastResponseExcerpt: row.last_response_excerpt,
    nextAttemptTrigger: row.next_attempt_trigger as AttemptTrigger,
  };
}

/**
 * When a newly inserted delivery is first due for the queue: a pending record at
 * its `nextRetryAt` (its creation time when unset); a finished one never.
 */
export function initialRunAt(record: DeliveryRecord): number | null {
  return record.status === 'pending' ? (record.nextRetryAt ?? record.createdAt) : null;
}

/** Parameters $1..$23 of the insert statement, in column order plus `run_at`. */
export function insertParams(record: DeliveryRecord): unknown[] {
  return [
    record.id,
    record.agencyId,
    record.eventId,
    record.eventType,
    record.entityType,
    record.entityId,
    record.parentEntityId,
    record.createdById,
    record.createdByRole,
    JSON.stringify(record.payload),
    record.createdOn,
    record.createdAt,
    record.status,
    record.attempt,
    record.maxAttempts,
    record.nextRetryAt,
    record.lastAttemptAt,
    record.deliveredAt,
    record.lastResponseCode,
    record.lastErrorMessage,
    record.lastResponseExcerpt,
    record.nextAttemptTrigger,
    initialRunAt(record),
  ];
}

/** One compare-and-set of a batch: the expectation, the update and the claim to settle. */
export interface CompareAndSetInput {
  deliveryId: string;
  expected: DeliveryExpectation;
  update: DeliveryUpdate;
  /** The claim this process holds on the delivery; null when none. */
  claimId: string | null;
  /** Where the settled entry goes: due again at this time, or removed when null. */
  settleRunAt: number | null;
}

/**
 * Parameters $1..$23 of the batched compare-and-set: one array per field, in
 * input order; $16..$23 are the attempt to record, all null for an update that
 * records none.
 */
export function compareAndSetParams(inputs: readonly CompareAndSetInput[]): unknown[][] {
  const column = (pick: (input: CompareAndSetInput) => unknown) => inputs.map(pick);
  const attempt = (pick: (attempt: AttemptRecord) => unknown) =>
    inputs.map(({ update }) => (update.recordedAttempt ? pick(update.recordedAttempt) : null));
  return [
    column((input) => input.deliveryId),
    column((input) => input.expected.attempt),
    column((input) => input.expected.status),
    column((input) => input.update.status),
    column((input) => input.update.attempt),
    column((input) => input.update.maxAttempts),
    column((input) => input.update.nextRetryAt),
    column((input) => input.update.lastAttemptAt),
    column((input) => input.update.deliveredAt),
    column((input) => input.update.lastResponseCode),
    column((input) => input.update.lastErrorMessage),
    column((input) => input.update.lastResponseExcerpt),
    column((input) => input.claimId),
    column((input) => input.settleRunAt),
    column((input) => input.update.nextAttemptTrigger),
    attempt((recorded) => recorded.attempt),
    attempt((recorded) => recorded.trigger),
    attempt((recorded) => recorded.startedAt),
    attempt((recorded) => recorded.durationMs),
    attempt((recorded) => recorded.responseCode),
    attempt((recorded) => recorded.errorKind),
    attempt((recorded) => recorded.errorMessage),
    attempt((recorded) => recorded.responseExcerpt),
  ];
}
