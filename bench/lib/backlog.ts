import type { WebhookService } from '@svc/webhooks-core';

/** Emits per call at most: keeps the process from holding thousands of pending promises. */
const EMIT_CHUNK = 250;

/** Emits `perAgency` `job_cancelled` events for each agency (a backlog when no worker runs yet). */
export async function emitBacklog(
  webhooks: WebhookService,
  agencies: readonly string[],
  perAgency: number,
): Promise<void> {
  const events = agencies.flatMap((agencyId) =>
    Array.from({ length: perAgency }, (_, n) => ({
      agencyId,
      eventType: 'job_cancelled' as const,
      entityId: `job-${n}`,
      metadata: { jobId: `job-${n}`, agencyId, jobNumber: n, reason: 'benchmark' },
    })),
  );
  for (let start = 0; start < events.length; start += EMIT_CHUNK) {
    await Promise.all(events.slice(start, start + EMIT_CHUNK).map((event) => webhooks.emit(event)));
  }
}
