import type { DeliveryQueue, DeliveryRecord, WebhookStore } from '@svc/webhooks-core';

/** One delivery emitted by a measurement. */
export interface EmittedDelivery {
  id: string;
  /** Whether its agency's receiver hangs. */
  hanging: boolean;
}

/** Where a measurement's deliveries stand once its worker has stopped. */
export interface AuditCounts {
  success: number;
  failed: number;
  /** `pending`, attempted at least once, the next attempt scheduled and queued. */
  pendingRetry: number;
  /** `pending`, never attempted (still in the backlog, or deferred), scheduled and queued. */
  pendingUnattempted: number;
  /** Not in the store at all. */
  missing: number;
  /** `pending` with no `nextRetryAt`: nothing would ever attempt it again. */
  unscheduled: number;
  /** `pending` and scheduled in the store, but absent from the queue: no worker would claim it. */
  unqueued: number;
}

/** The audit of the hanging agencies' deliveries and of the healthy ones. */
export interface Audit {
  hanging: AuditCounts;
  healthy: AuditCounts;
  /** Deliveries that vanished: missing, unscheduled or unqueued, hanging and healthy together. */
  lost: number;
}

const READ_CONCURRENCY = 50;
const AUDIT_LEASE_MS = 60_000;
const CLAIM_BATCH = 500;
/** Later than any due time the engine sets in a run (first retry 1 min, breaker periods ≤ 10 min). */
const HORIZON_MS = 24 * 3_600_000;

const emptyCounts = (): AuditCounts => ({
  success: 0,
  failed: 0,
  pendingRetry: 0,
  pendingUnattempted: 0,
  missing: 0,
  unscheduled: 0,
  unqueued: 0,
});

async function readAll(store: WebhookStore, ids: readonly string[]): Promise<(DeliveryRecord | null)[]> {
  const records: (DeliveryRecord | null)[] = [];
  for (let start = 0; start < ids.length; start += READ_CONCURRENCY) {
    const batch = ids.slice(start, start + READ_CONCURRENCY);
    records.push(...(await Promise.all(batch.map((id) => store.getDelivery(id)))));
  }
  return records;
}

/**
 * Every delivery id the queue holds, due now or at any time in the next day:
 * claimed with a clock a day ahead, so retries scheduled a minute out come
 * back too. Only for a queue nobody works on any more (it leaves the entries claimed).
 */
async function queuedIds(queue: DeliveryQueue): Promise<Set<string>> {
  const ids = new Set<string>();
  const now = Date.now() + HORIZON_MS;
  for (;;) {
    const claims = await queue.claim({ limit: CLAIM_BATCH, leaseMs: AUDIT_LEASE_MS, now });
    const before = ids.size;
    for (const claim of claims) ids.add(claim.deliveryId);
    if (claims.length === 0 || ids.size === before) return ids;
  }
}

function classify(record: DeliveryRecord | null, queued: boolean, counts: AuditCounts): void {
  if (!record) counts.missing += 1;
  else if (record.status === 'success') counts.success += 1;
  else if (record.status === 'failed') counts.failed += 1;
  else if (record.nextRetryAt === null) counts.unscheduled += 1;
  else if (!queued) counts.unqueued += 1;
  else if (record.attempt > 0) counts.pendingRetry += 1;
  else counts.pendingUnattempted += 1;
}

/**
 * Checks, through the store and the queue, that no delivery vanished: each one
 * is `success`, `failed`, or `pending` with a next attempt both scheduled
 * (`nextRetryAt`) and queued. Run after the worker has stopped.
 */
export async function auditDeliveries(
  store: WebhookStore,
  queue: DeliveryQueue,
  emitted: readonly EmittedDelivery[],
): Promise<Audit> {
  const records = await readAll(
    store,
    emitted.map((delivery) => delivery.id),
  );
  const queued = await queuedIds(queue);
  const audit: Audit = { hanging: emptyCounts(), healthy: emptyCounts(), lost: 0 };
  emitted.forEach((delivery, index) => {
    classify(
      records[index] ?? null,
      queued.has(delivery.id),
      delivery.hanging ? audit.hanging : audit.healthy,
    );
  });
  for (const counts of [audit.hanging, audit.healthy]) {
    audit.lost += counts.missing + counts.unscheduled + counts.unqueued;
  }
  return audit;
}
