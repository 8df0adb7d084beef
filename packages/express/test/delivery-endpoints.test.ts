import type { AttemptRecord, DeliveryRecord } from '@svc/webhooks-core';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, TOKENS } from './router-harness';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
checkResponsesAgainstDocument(() => h);

const SUMMARY_KEYS = [
  'attempt',
  'createdAt',
  'deliveredAt',
  'entityId',
  'entityType',
  'eventType',
  'id',
  'lastAttemptAt',
  'lastResponseCode',
  'status',
];

function get(path: string, token: string = TOKENS.owner) {
  return request(h.app).get(`${BASE}${path}`).set('authorization', token);
}

function replay(id: string, token: string = TOKENS.owner) {
  return request(h.app).post(`${BASE}/deliveries/${id}/replay`).set('authorization', token);
}

const failedFields = {
  status: 'failed',
  attempt: 5,
  nextRetryAt: null,
  lastAttemptAt: 1_700_000_100_000,
  lastResponseCode: 500,
} as const;
const successFields = {
  status: 'success',
  attempt: 1,
  nextRetryAt: null,
  deliveredAt: 1_700_000_001_000,
  lastResponseCode: 204,
} as const;

/** Seeds agency-1: pending, success, failed (oldest first), and one delivery of agency-2. */
async function seedMixed(): Promise<{
  pending: DeliveryRecord;
  success: DeliveryRecord;
  failed: DeliveryRecord;
  foreign: DeliveryRecord;
}> {
  const pending = await h.seedDelivery({ agencyId: 'agency-1' });
  const success = await h.seedDelivery({ agencyId: 'agency-1', ...successFields });
  const failed = await h.seedDelivery({ agencyId: 'agency-1', ...failedFields });
  const foreign = await h.seedDelivery({ agencyId: 'agency-2', ...failedFields });
  return { pending, success, failed, foreign };
}

describe('GET /deliveries', () => {
  it('answers an empty page before any delivery', async () => {
    const res = await get('/deliveries');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deliveries: [], nextCursor: null });
  });

  it('lists the agency’s deliveries newest first, in summary form, without other agencies’', async () => {
    const { pending, success, failed } = await seedMixed();
    const res = await get('/deliveries');
    expect(res.status).toBe(200);
    expect(res.body.deliveries.map((d: { id: string }) => d.id)).toEqual([failed.id, success.id, pending.id]);
    expect(Object.keys(res.body.deliveries[0]).sort()).toEqual(SUMMARY_KEYS);
    expect(res.body.deliveries[0]).toMatchObject({ status: 'failed', attempt: 5, lastResponseCode: 500 });
    expect(res.body.nextCursor).toBeNull();
  });

  it.each(['pending', 'success', 'failed'] as const)('filters by status=%s', async (status) => {
    const seeded = await seedMixed();
    const res = await get(`/deliveries?status=${status}`);
    expect(res.body.deliveries.map((d: { id: string }) => d.id)).toEqual([seeded[status].id]);
  });

  it('defaults to 20 per page and walks every page with nextCursor, each delivery once', async () => {
    const seeded: string[] = [];
    for (let i = 0; i < 45; i += 1) seeded.push((await h.seedDelivery({ agencyId: 'agency-1' })).id);
    const first = await get('/deliveries');
    expect(first.body.deliveries).toHaveLength(20);
    const seen: string[] = first.body.deliveries.map((d: { id: string }) => d.id);
    let cursor: string | null = first.body.nextCursor;
    while (cursor !== null) {
      const page = await get(`/deliveries?limit=20&cursor=${encodeURIComponent(cursor)}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.deliveries.map((d: { id: string }) => d.id));
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual([...seeded].reverse());
  });

  it('takes limit 1 and 100 (the bounds)', async () => {
    await seedMixed();
    expect((await get('/deliveries?limit=1')).body.deliveries).toHaveLength(1);
    expect((await get('/deliveries?limit=100')).body.deliveries).toHaveLength(3);
  });

  const invalidQueries: [string, string, string][] = [
    ['an unknown status', 'status=delivered', 'status'],
    ['status given twice', 'status=failed&status=success', 'status'],
    ['limit 0', 'limit=0', 'limit'],
    ['limit 101', 'limit=101', 'limit'],
    ['a negative limit', 'limit=-5', 'limit'],
    ['a fractional limit', 'limit=2.5', 'limit'],
    ['a non-numeric limit', 'limit=ten', 'limit'],
    ['an empty cursor', 'cursor=', 'cursor'],
    ['a cursor this API did not make', 'cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ['an unknown parameter', 'page=2', ''],
  ];

  it.each(invalidQueries)('%s → 400 validation_failed at "%s"', async (_name, query, path) => {
    await seedMixed();
    const res = await get(`/deliveries?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(path);
  });
});

describe('GET /deliveries/:id', () => {
  it('answers the detail form', async () => {
    const { failed } = await seedMixed();
    const res = await get(`/deliveries/${failed.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: failed.id,
      webhookId: `whdel_${failed.id}`,
      eventId: failed.eventId,
      status: 'failed',
      attempt: 5,
      maxAttempts: 5,
      nextRetryAt: null,
      payload: failed.payload,
      parentEntityId: null,
      createdByRole: 'Agent',
    });
  });

  it('404 delivery_not_found for an unknown id', async () => {
    const res = await get('/deliveries/0190f0e0-0000-7000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('delivery_not_found');
  });

  it('404 delivery_not_found for another agency’s delivery, like an unknown one', async () => {
    const { foreign } = await seedMixed();
    const res = await get(`/deliveries/${foreign.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('delivery_not_found');
    expect(JSON.stringify(res.body)).not.toContain('agency-2');
  });
});

describe('POST /deliveries/:id/replay', () => {
  it('re-enqueues a failed delivery: 202, status pending, attempt kept, one queue entry', async () => {
    const { failed } = await seedMixed();
    const res = await replay(failed.id);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: expect.any(String), deliveryId: failed.id });
    const stored = await h.service.store.getDelivery(failed.id);
    expect(stored).toMatchObject({ status: 'pending', attempt: 5, maxAttempts: 6 });
    expect(h.queue.enqueued.map((entry) => entry.deliveryId)).toEqual([failed.id]);
    const read = await get(`/deliveries/${failed.id}`);
    expect(read.body).toMatchObject({ status: 'pending', attempt: 5 });
  });

  it.each(['pending', 'success'] as const)(
    '409 delivery_not_replayable for a %s delivery, nothing changed',
    async (status) => {
      const seeded = await seedMixed();
      const before = await h.snapshot();
      const res = await replay(seeded[status].id);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'delivery_not_replayable', details: { status } });
      expect(await h.snapshot()).toBe(before);
    },
  );

  it('409 for a second replay of the same delivery while it is pending again', async () => {
    const { failed } = await seedMixed();
    expect((await replay(failed.id)).status).toBe(202);
    const again = await replay(failed.id);
    expect(again.status).toBe(409);
    expect(h.queue.enqueued).toHaveLength(1);
  });

  it('404 for an unknown id, nothing changed', async () => {
    await seedMixed();
    const before = await h.snapshot();
    const res = await replay('0190f0e0-0000-7000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('delivery_not_found');
    expect(await h.snapshot()).toBe(before);
  });

  it('404 for another agency’s failed delivery, which stays failed', async () => {
    const { foreign } = await seedMixed();
    const before = await h.snapshot();
    const res = await replay(foreign.id);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('delivery_not_found');
    expect(await h.snapshot()).toBe(before);
    expect((await h.service.store.getDelivery(foreign.id))?.status).toBe('failed');
  });
});

describe('GET /deliveries/:id/attempts', () => {
  const ATTEMPT_KEYS = [
    'attempt',
    'durationMs',
    'errorKind',
    'errorMessage',
    'responseCode',
    'responseExcerpt',
    'startedAt',
    'trigger',
  ];
  const timedOut: AttemptRecord = {
    attempt: 1,
    trigger: 'automatic',
    startedAt: 1_700_000_000_000,
    durationMs: 10_000,
    responseCode: null,
    errorKind: 'timeout',
    errorMessage: 'The receiver did not answer in time.',
    responseExcerpt: null,
  };
  const delivered: AttemptRecord = {
    attempt: 2,
    trigger: 'replay',
    startedAt: 1_700_000_060_000,
    durationMs: 42,
    responseCode: 200,
    errorKind: null,
    errorMessage: null,
    responseExcerpt: '<script>alert(1)</script>',
  };

  /** Records `attempt` on the delivery the way a worker does: in the compare-and-set of its update. */
  async function record(delivery: DeliveryRecord, attempt: AttemptRecord): Promise<void> {
    const success = attempt.errorKind === null;
    const saved = await h.service.store.updateDelivery(
      delivery.id,
      { attempt: attempt.attempt - 1, status: 'pending' },
      {
        status: success ? 'success' : 'pending',
        attempt: attempt.attempt,
        maxAttempts: 5,
        nextRetryAt: success ? null : attempt.startedAt + 60_000,
        lastAttemptAt: attempt.startedAt,
        deliveredAt: success ? attempt.startedAt : null,
        lastResponseCode: attempt.responseCode,
        lastErrorMessage: attempt.errorMessage,
        lastResponseExcerpt: attempt.responseExcerpt,
        nextAttemptTrigger: 'automatic',
        recordedAttempt: attempt,
      },
    );
    expect(saved, `attempt ${attempt.attempt} recorded`).not.toBeNull();
  }

  it('answers the attempts oldest first, each with exactly the documented fields', async () => {
    const { pending } = await seedMixed();
    await record(pending, timedOut);
    await record(pending, delivered);
    const res = await get(`/deliveries/${pending.id}/attempts`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ attempts: [timedOut, delivered] });
    for (const entry of res.body.attempts) expect(Object.keys(entry).sort()).toEqual(ATTEMPT_KEYS);
  });

  it('answers an empty list for a delivery not attempted yet', async () => {
    const { pending } = await seedMixed();
    const res = await get(`/deliveries/${pending.id}/attempts`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ attempts: [] });
  });

  it('is readable with an admin token too', async () => {
    const { pending } = await seedMixed();
    await record(pending, timedOut);
    const res = await get(`/deliveries/${pending.id}/attempts`, TOKENS.admin);
    expect(res.status).toBe(200);
    expect(res.body.attempts).toEqual([timedOut]);
  });

  it('404 delivery_not_found for an unknown id', async () => {
    const res = await get('/deliveries/0190f0e0-0000-7000-8000-000000000000/attempts');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('delivery_not_found');
  });

  it('404 delivery_not_found for another agency’s delivery, its attempts not shown', async () => {
    const foreign = await h.seedDelivery({ agencyId: 'agency-2' });
    await record(foreign, timedOut);
    const res = await get(`/deliveries/${foreign.id}/attempts`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('delivery_not_found');
    expect(JSON.stringify(res.body)).not.toContain('did not answer');
    const own = await get(`/deliveries/${foreign.id}/attempts`, TOKENS.otherOwner);
    expect(own.body.attempts, 'the owning agency sees them').toEqual([timedOut]);
  });
});
