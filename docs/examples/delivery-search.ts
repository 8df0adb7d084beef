import type { DeliverySummary, WebhookService } from '@svc/webhooks-core';

const DAY = 24 * 60 * 60 * 1000;

/**
 * The failed deliveries about one entity (a job, say) created in the 24 hours
 * before `now`, newest first, across every page: what a support screen shows
 * when an agency asks why its system missed that job's events.
 */
export async function recentFailuresOf(
  webhooks: WebhookService,
  agencyId: string,
  entityId: string,
  now: number = Date.now(),
): Promise<DeliverySummary[]> {
  // since is inclusive, until exclusive: back-to-back windows never list a delivery twice.
  const filters = { entityId, status: 'failed' as const, since: now - DAY, until: now };
  const found: DeliverySummary[] = [];
  let cursor: string | undefined;
  do {
    // The cursor only marks a position: every page is asked with the same filters.
    const page = await webhooks.listDeliveries(agencyId, { ...filters, limit: 100, cursor });
    found.push(...page.deliveries);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return found;
}
