import { randomUUID } from 'node:crypto';
import {
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  WEBHOOK_ID_HEADER,
  type WebhookEnvelope,
} from '@svc/webhooks-core';
import { signWebhook } from '@svc/webhooks-verify';
import { Pool } from 'undici';

interface Target {
  receiverUrl: string;
  ca: string;
  secret: string;
  /** The User-Agent the engine under test sends. */
  userAgent: string;
}

/** The body and headers the engine would send for delivery `i`. */
function signedRequest(i: number, target: Target): { body: string; headers: Record<string, string> } {
  const now = Date.now();
  const envelope: WebhookEnvelope = {
    webhookId: `whdel_${randomUUID()}`,
    eventType: 'job_cancelled',
    entityType: 'job',
    entityId: `job-${i}`,
    parentEntityId: null,
    createdById: 'agent-1',
    createdByRole: 'Agent',
    metadata: {
      jobId: `job-${i}`,
      agencyId: 'bench-agency',
      jobNumber: i,
      reason: 'Tenant withdrew the request',
    },
    createdOn: now,
    deliveredAt: now,
    attempt: 1,
  };
  // The engine's field-by-field serialisation is byte-identical to JSON.stringify of an envelope in spec order
  // (property-tested in core's envelope tests), and the ceiling signs outside its timing anyway.
  const body = JSON.stringify(envelope);
  return {
    body,
    headers: {
      [SIGNATURE_HEADER]: signWebhook(body, target.secret, now),
      [WEBHOOK_ID_HEADER]: envelope.webhookId,
      [EVENT_TYPE_HEADER]: envelope.eventType,
      'content-type': 'application/json',
      'user-agent': target.userAgent,
    },
  };
}

/**
 * The ceiling: `count` POSTs of pre-signed bodies over one keep-alive undici
 * Pool with `concurrency` connections and as many requests in flight. Bodies
 * are signed up front so the ceiling pays for nothing but HTTP; each request
 * carries exactly the headers the engine sends, so header bytes and their
 * parsing count on both sides and the ratio is the engine's own overhead.
 */
export async function measureRawCeiling(target: Target, count: number, concurrency: number): Promise<number> {
  const url = new URL(target.receiverUrl);
  const requests = Array.from({ length: count }, (_, i) => signedRequest(i, target));
  const pool = new Pool(url.origin, { connections: concurrency, connect: { ca: target.ca } });
  let next = 0;
  let failures = 0;
  const lane = async () => {
    while (next < count) {
      const { body, headers } = requests[next++]!;
      const response = await pool.request({ method: 'POST', path: url.pathname, body, headers });
      await response.body.dump();
      if (response.statusCode < 200 || response.statusCode >= 300) failures++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  if (failures > 0) throw new Error(`${failures} raw POSTs were not answered 2xx`);
  return count / seconds;
}
