import type { DeliveryRecord, DeliveryUpdate } from '../delivery/delivery';
import type { AttemptLog } from './attempt-log';
import { clonePayload } from './clone-payload';
import type { HeapSlot } from './indexed-heap';

/*
 * How the memory store holds a delivery: a detached copy of the record that no
 * caller ever sees, written in place by updates and copied on the way out.
 */

/**
 * A stored delivery: a detached copy of the record, its slot in the pending list
 * (-1 when not pending), its slot in the finished index (`heapIndex`, -1 while
 * pending) and its attempt history.
 */
export interface StoredDelivery extends DeliveryRecord, AttemptLog, HeapSlot {
  pendingSlot: number;
}

/** Writes exactly the fields an update owns; identity and event fields never change. */
export function applyUpdate(record: DeliveryRecord, update: DeliveryUpdate): void {
  record.status = update.status;
  record.attempt = update.attempt;
  record.maxAttempts = update.maxAttempts;
  record.nextRetryAt = update.nextRetryAt;
  record.lastAttemptAt = update.lastAttemptAt;
  record.deliveredAt = update.deliveredAt;
  record.lastResponseCode = update.lastResponseCode;
  record.lastErrorMessage = update.lastErrorMessage;
  record.lastResponseExcerpt = update.lastResponseExcerpt;
  record.nextAttemptTrigger = update.nextAttemptTrigger;
}

/** A detached copy holding exactly the record's fields (extra properties are not stored). */
export function copyDelivery(record: DeliveryRecord): DeliveryRecord {
  return {
    id: record.id,
    agencyId: record.agencyId,
    eventId: record.eventId,
    eventType: record.eventType,
    entityType: record.entityType,
    entityId: record.entityId,
    parentEntityId: record.parentEntityId,
    createdById: record.createdById,
    createdByRole: record.createdByRole,
    payload: clonePayload(record.payload),
    createdOn: record.createdOn,
    createdAt: record.createdAt,
    status: record.status,
    attempt: record.attempt,
    maxAttempts: record.maxAttempts,
    nextRetryAt: record.nextRetryAt,
    lastAttemptAt: record.lastAttemptAt,
    deliveredAt: record.deliveredAt,
    lastResponseCode: record.lastResponseCode,
    lastErrorMessage: record.lastErrorMessage,
    lastResponseExcerpt: record.lastResponseExcerpt,
    nextAttemptTrigger: record.nextAttemptTrigger,
  };
}

/**
 * The stored form of a record: a detached copy, not yet in the pending list. Its
 * own literal rather than `copyDelivery` plus a field, so every stored record is
 * built with one shape and the copies made from them stay monomorphic.
 */
export function storedCopy(record: DeliveryRecord): StoredDelivery {
  return {
    id: record.id,
    agencyId: record.agencyId,
    eventId: record.eventId,
    eventType: record.eventType,
    entityType: record.entityType,
    entityId: record.entityId,
    parentEntityId: record.parentEntityId,
    createdById: record.createdById,
    createdByRole: record.createdByRole,
    payload: clonePayload(record.payload),
    createdOn: record.createdOn,
    createdAt: record.createdAt,
    status: record.status,
    attempt: record.attempt,
    maxAttempts: record.maxAttempts,
    nextRetryAt: record.nextRetryAt,
    lastAttemptAt: record.lastAttemptAt,
    deliveredAt: record.deliveredAt,
    lastResponseCode: record.lastResponseCode,
    lastErrorMessage: record.lastErrorMessage,
    lastResponseExcerpt: record.lastResponseExcerpt,
    nextAttemptTrigger: record.nextAttemptTrigger,
    pendingSlot: -1,
    heapIndex: -1,
    attempts: null,
  };
}
