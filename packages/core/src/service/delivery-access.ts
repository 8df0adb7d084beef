import type { QueueEntry } from '../adapters/queue';
import type { ReplayTrigger } from '../delivery/attempt-record';
import type { DeliveryRecord, ReplayResult } from '../delivery/delivery';
import { replayUpdate } from '../delivery/state-machine';
import { DeliveryNotFoundError, DeliveryNotReplayableError } from '../errors';
import { probeAgencyNow } from './circuit-access';
import type { Engine } from './engine';

/**
 * The agency's delivery with this id.
 * @throws DeliveryNotFoundError for an unknown id, and exactly so for another agency's: ids leak nothing.
 */
export async function requireDelivery(
  engine: Engine,
  agencyId: string,
  deliveryId: string,
): Promise<DeliveryRecord> {
  const record = await engine.store.getDelivery(deliveryId);
  if (!record || record.agencyId !== agencyId) throw new DeliveryNotFoundError(deliveryId);
  return record;
}

/**
 * Puts the agency's failed delivery back on the queue for one more attempt, which
 * the attempt history records with `trigger`: `replay` for a manual replay,
 * `recovery` for one a bulk recovery asks for.
 * @throws DeliveryNotFoundError, DeliveryNotReplayableError (also when another replay got there first)
 */
export async function replayDelivery(
  engine: Engine,
  agencyId: string,
  deliveryId: string,
  trigger: ReplayTrigger = 'replay',
): Promise<ReplayResult> {
  const record = await requireDelivery(engine, agencyId, deliveryId);
  const saved = await replayRecord(engine, record, trigger);
  if (!saved) {
    // Someone changed it between our read and write (another replay, most likely).
    const current = await requireDelivery(engine, agencyId, deliveryId);
    throw new DeliveryNotReplayableError(deliveryId, current.status);
  }
  return { message: 'Delivery re-enqueued for another attempt.', deliveryId: saved.id };
}

/**
 * Replays a failed delivery as read in `record` (compare-and-set on its attempt and
 * status) and queues it. Returns the record saved, or null when it changed since it
 * was read: another replay or an attempt got there first, and nothing was written.
 * @throws DeliveryNotReplayableError when `record` itself is not failed
 */
export async function replayRecord(
  engine: Engine,
  record: DeliveryRecord,
  trigger: ReplayTrigger,
): Promise<DeliveryRecord | null> {
  const saved = await writeReplay(engine, record, trigger);
  if (saved) {
    await engine.queue.enqueue(queueEntryOf(saved));
    await probeAgencyNow(engine, saved.agencyId);
  }
  return saved;
}

/**
 * The store half of {@link replayRecord}: the delivery made pending again, not yet queued.
 * For callers that queue many at once; until they do, the delivery waits for the recovery sweep.
 */
export function writeReplay(
  engine: Engine,
  record: DeliveryRecord,
  trigger: ReplayTrigger,
): Promise<DeliveryRecord | null> {
  return engine.store.updateDelivery(
    record.id,
    { attempt: record.attempt, status: record.status },
    replayUpdate(record, engine.clock(), trigger),
  );
}

/** The queue entry of a delivery made pending: due at its `nextRetryAt`. */
export function queueEntryOf(record: DeliveryRecord): QueueEntry {
  return { deliveryId: record.id, agencyId: record.agencyId, runAt: record.nextRetryAt ?? 0 };
}
