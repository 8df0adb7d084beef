import type { CountDeliveriesFilter } from '../adapters/store';
import type { DeliveryRecord } from '../delivery/delivery';

/**
 * Whether `record` passes every filter of a list or count request (the paging aside).
 *
 * The memory store walks the agency's ids newest first and skips the records this
 * rejects: a filter costs nothing on writes, and a page of a rare filter costs a
 * walk of the agency's log, which is what an embedded, single-process store can
 * afford. The time bounds read `createdAt`, never the id, as the contract says.
 */
export function matchesListFilters(record: DeliveryRecord, options: CountDeliveriesFilter): boolean {
  return (
    (options.status === undefined || record.status === options.status) &&
    (options.eventType === undefined || record.eventType === options.eventType) &&
    (options.entityId === undefined || record.entityId === options.entityId) &&
    (options.createdSince === undefined || record.createdAt >= options.createdSince) &&
    (options.createdBefore === undefined || record.createdAt < options.createdBefore)
  );
}
