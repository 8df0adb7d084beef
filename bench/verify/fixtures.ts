import { createHash } from 'node:crypto';

/** Body sizes of the run, in bytes. */
export const BODY_SIZES = [100, 1024, 64 * 1024] as const;
export type BodySize = (typeof BODY_SIZES)[number];

/** A secret shaped like the service's: 64 hex characters. */
export const SECRET = createHash('sha256').update('bench-secret').digest('hex');

/**
 * A JSON object of exactly `size` bytes. From 1 KiB up it is a real delivery envelope whose metadata
 * carries a filler string; at 100 B only a few envelope fields fit.
 */
export function jsonBody(size: BodySize): string {
  const now = 1_767_225_600_000;
  const base =
    size < 512
      ? { webhookId: 'whdel_01', eventType: 'job_created', attempt: 1, pad: '' }
      : {
          webhookId: 'whdel_0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
          eventType: 'job_created',
          entityType: 'job',
          entityId: 'job_8f2k1',
          parentEntityId: null,
          createdById: 'agent_51x',
          createdByRole: 'Agent',
          metadata: { jobId: 'job_8f2k1', agencyId: 'agency_77', jobNumber: 1042, notes: '' },
          createdOn: now - 2_000,
          deliveredAt: now - 1_000,
          attempt: 1,
        };
  const empty = JSON.stringify(base).length;
  const filler = 'x'.repeat(size - empty);
  const body = JSON.stringify(
    'pad' in base ? { ...base, pad: filler } : { ...base, metadata: { ...base.metadata, notes: filler } },
  );
  if (Buffer.byteLength(body) !== size)
    throw new Error(`body is ${Buffer.byteLength(body)} bytes, wanted ${size}`);
  return body;
}
