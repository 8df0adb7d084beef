import type { AttemptList } from '../delivery/attempt-record';
import { requireDelivery } from './delivery-access';
import type { Engine } from './engine';

/**
 * The agency's delivery's attempts, oldest first. The delivery is checked first,
 * so another agency's history is never even read.
 * @throws DeliveryNotFoundError for an unknown id, and exactly so for another agency's
 */
export async function listAttempts(
  engine: Engine,
  agencyId: string,
  deliveryId: string,
): Promise<AttemptList> {
  await requireDelivery(engine, agencyId, deliveryId);
  return { attempts: await engine.store.listAttempts(deliveryId) };
}
