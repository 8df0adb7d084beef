import type { WebhookService } from '@svc/webhooks-core';

/**
 * Gives every failed delivery of an agency one more attempt, for instance once
 * the agency has fixed its receiver. Returns how many were replayed.
 */
export async function replayFailedDeliveries(webhooks: WebhookService, agencyId: string): Promise<number> {
  let replayed = 0;
  let cursor: string | undefined;
  do {
    const page = await webhooks.listDeliveries(agencyId, { status: 'failed', limit: 100, cursor });
    for (const delivery of page.deliveries) {
      await webhooks.replay(agencyId, delivery.id); // attempt continues: 5 → 6
      replayed += 1;
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return replayed;
}
