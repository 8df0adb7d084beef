import { createHmac } from 'node:crypto';

/** A secret shaped like the service's: 64 lower-case hex characters. */
export const SECRET = '3f9a1c7e5b2d4f6081a3c5e7092b4d6f8a1c3e5b7d9f0213a4c6e8b0d2f4a6c8';
export const OTHER_SECRET = 'b1d3f5a7c9e0214365879aabbccddeeff00112233445566778899aabbccddeef';
/** 2026-01-01T00:00:00Z in epoch ms; tests pass it as `now` so nothing depends on the clock. */
export const NOW = 1_767_225_600_000;

/** A delivery envelope as the service serialises it. */
export const BODY = JSON.stringify({
  webhookId: 'whdel_01',
  eventType: 'quote_approved',
  entityType: 'quote',
  entityId: 'quote_1',
  parentEntityId: 'job_1',
  createdById: 'agent_1',
  createdByRole: 'Agent',
  metadata: {
    fulfilmentId: 'ful_1',
    jobId: 'job_1',
    agencyId: 'ag_1',
    jobNumber: 7,
    serviceProviderId: 'sp_1',
    quoteStatus: 'approved',
  },
  createdOn: NOW - 2_000,
  deliveredAt: NOW - 1_000,
  attempt: 1,
});

/** Signs independently of the package under test, straight from the spec's definition. */
export function referenceHeader(
  body: string | Uint8Array,
  secret: string,
  timestamp: number | string,
): string {
  const hmac = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  return `t=${timestamp},v1=${hmac}`;
}

/** Runs `fn` and returns what it threw, failing when it does not throw. */
export function thrown(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected the call to throw');
}

/** The Standard Webhooks reference vector: a secret, id, timestamp and body with their known signature. */
export const REFERENCE = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  seconds: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
} as const;

/** `NOW` in epoch seconds, the Standard Webhooks timestamp of the tests. */
export const NOW_SECONDS = NOW / 1000;
/** The `webhook-id` of the tests' deliveries. */
export const ID = 'whdel_01';

/**
 * A Standard Webhooks `v1` entry computed independently of the package, from the rules: HMAC-SHA256 of
 * `<id>.<seconds>.<body>` under the key bytes, standard base64.
 */
export function referenceStandardSignature(
  body: string | Uint8Array,
  key: string | Uint8Array,
  id: string = ID,
  seconds: number | string = NOW_SECONDS,
): string {
  const mac = createHmac('sha256', key).update(`${id}.${seconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers, as Node hands them over (lower-case record). */
export function standardHeaders(
  signature: string,
  id: string = ID,
  seconds: number | string = NOW_SECONDS,
): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': signature };
}

/** The agency's whsec_ form of `SECRET`, computed from the rule: whsec_ + base64 of the hex's UTF-8 bytes. */
export const SECRET_WHSEC = `whsec_${Buffer.from(SECRET, 'utf8').toString('base64')}`;
