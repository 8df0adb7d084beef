import { createMemoryQueue, createMemoryStore, createWebhookService } from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import { describe, expect, it } from 'vitest';
import { recentFailuresOf } from '../examples/delivery-search';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;

describe('delivery search sample (docs/delivery-lifecycle.md)', () => {
  it('finds an entity’s failed deliveries of the last 24 hours, newest first, over several pages', async () => {
    const webhooks = createWebhookService({ store: createMemoryStore(), queue: createMemoryQueue() });
    const failed = { status: 'failed' as const, attempt: 5, nextRetryAt: null };
    const wanted = [];
    // 230 failures, one every 6 minutes up to 6 minutes before NOW: three pages of 100.
    for (let step = 230; step >= 1; step--) {
      const createdAt = NOW - step * (HOUR / 10);
      const record = makeDeliveryRecord({ agencyId: 'agency-s', entityId: 'job-7', createdAt, ...failed });
      await webhooks.store.insertDelivery(record);
      wanted.push(record.id);
    }
    const others = [
      { entityId: 'job-7', createdAt: NOW - 25 * HOUR, ...failed }, // older than a day
      { entityId: 'job-7', createdAt: NOW, ...failed }, // until is exclusive
      { entityId: 'job-7', createdAt: NOW - HOUR, status: 'success' as const, nextRetryAt: null },
      { entityId: 'job-8', createdAt: NOW - HOUR, ...failed },
      { agencyId: 'agency-t', entityId: 'job-7', createdAt: NOW - HOUR, ...failed },
    ];
    for (const fields of others)
      await webhooks.store.insertDelivery(makeDeliveryRecord({ agencyId: 'agency-s', ...fields }));

    const found = await recentFailuresOf(webhooks, 'agency-s', 'job-7', NOW);
    expect(wanted.length).toBeGreaterThan(100);
    expect(found.map((delivery) => delivery.id)).toEqual(wanted.reverse());
    await webhooks.close();
  });
});
