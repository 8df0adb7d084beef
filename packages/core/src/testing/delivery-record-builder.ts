import { randomUUID } from 'node:crypto';
import type { DeliveryRecord } from '../delivery/delivery';
import { newRecoveryRecord, type RecoveryRecord } from '../delivery/recovery';
import { newId } from '../ids';

/**
 * Epoch ms every conformance test counts from (14 Nov 2023). Tests pass explicit
 * times derived from it and never read the wall clock for record or queue times.
 */
export const BASE_TIME = 1_700_000_000_000;

/**
 * A new delivery id: a lowercase UUIDv7, greater than every id made before it in
 * this process, like the ids the service generates. Use it where a test needs
 * ids in a known order.
 *
 * @example
 * ```ts
 * const [older, newer] = [makeDeliveryId(), makeDeliveryId()]; // older < newer
 * ```
 */
export function makeDeliveryId(): string {
  return newId();
}

/**
 * Test data builder: a valid pending delivery that has not been attempted yet,
 * with a fresh id and a fresh event id, due at `BASE_TIME` (1_700_000_000_000). Every field can
 * be overridden; nothing else is derived from the overrides.
 *
 * @param overrides - Fields to set instead of the defaults.
 * @example
 * ```ts
 * const failed = makeDeliveryRecord({ agencyId: 'agency-b', status: 'failed', attempt: 5, nextRetryAt: null });
 * ```
 */
export function makeDeliveryRecord(overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    id: makeDeliveryId(),
    agencyId: 'agency-a',
    eventId: `evt_${randomUUID()}`,
    eventType: 'job_created',
    entityType: 'job',
    entityId: 'job-1',
    parentEntityId: null,
    createdById: 'agent-1',
    createdByRole: 'Agent',
    payload: { jobId: 'job-1', jobNumber: 'J-0001' },
    createdOn: BASE_TIME,
    createdAt: BASE_TIME,
    status: 'pending',
    attempt: 0,
    maxAttempts: 5,
    nextRetryAt: BASE_TIME,
    lastAttemptAt: null,
    deliveredAt: null,
    lastResponseCode: null,
    lastErrorMessage: null,
    lastResponseExcerpt: null,
    nextAttemptTrigger: 'automatic',
    ...overrides,
  };
}

/**
 * Test data builder: a new `running` bulk recovery of `agency-a` over the day before
 * `BASE_TIME`, every event type, nothing walked yet (version 1), as `recoverDeliveries`
 * stores one. Every field can be overridden; nothing else is derived from the overrides.
 *
 * @param overrides - Fields to set instead of the defaults.
 * @example
 * ```ts
 * const { recovery } = await store.createRecovery(makeRecoveryRecord({ since, until }));
 * ```
 */
export function makeRecoveryRecord(overrides: Partial<RecoveryRecord> = {}): RecoveryRecord {
  return {
    ...newRecoveryRecord({
      id: `rcv_${randomUUID()}`,
      agencyId: 'agency-a',
      since: BASE_TIME - 86_400_000,
      until: BASE_TIME,
      eventTypes: null,
      matched: 0,
      now: BASE_TIME,
    }),
    ...overrides,
  };
}
