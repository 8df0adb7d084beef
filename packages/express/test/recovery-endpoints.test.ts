import { createEventCatalogue, type DeliveryRecord, defineEvent } from '@svc/webhooks-core';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, TOKENS } from './router-harness';

// No worker runs here: a started recovery stays `running`, which is what the
// conflict and cancel cases need. Walking is tested in core and the adapters.
let h: Harness;
beforeEach(() => {
  h = createHarness();
});
checkResponsesAgainstDocument(() => h);

const DAY = 86_400_000;
const T0 = 1_700_000_000_000;

function recover(body: unknown, token: string = TOKENS.owner) {
  return request(h.app)
    .post(`${BASE}/deliveries/recover`)
    .set('authorization', token)
    .send(body as object);
}

function getRecovery(id: string, token: string = TOKENS.owner) {
  return request(h.app).get(`${BASE}/recoveries/${id}`).set('authorization', token);
}

function listRecoveries(query: Record<string, string> = {}, token: string = TOKENS.owner) {
  return request(h.app).get(`${BASE}/recoveries`).query(query).set('authorization', token);
}

function cancel(id: string, token: string = TOKENS.owner) {
  return request(h.app).post(`${BASE}/recoveries/${id}/cancel`).set('authorization', token);
}

function failedAt(createdAt: number, overrides: Partial<DeliveryRecord> = {}) {
  return h.seedDelivery({
    agencyId: 'agency-1',
    status: 'failed',
    attempt: 5,
    nextRetryAt: null,
    createdAt,
    ...overrides,
  });
}

/** Agency 1: three failed deliveries in [T0, T0 + 1 day), one before, one success, one of another type; one of agency 2. */
async function seedOutage() {
  const inWindow = [await failedAt(T0), await failedAt(T0 + 1000), await failedAt(T0 + DAY - 1)];
  await failedAt(T0 - 1);
  await failedAt(T0 + 2000, { eventType: 'quote_approved' });
  await h.seedDelivery({ agencyId: 'agency-1', status: 'success', createdAt: T0 + 10, nextRetryAt: null });
  await h.seedDelivery({ agencyId: 'agency-2', status: 'failed', createdAt: T0 + 10, nextRetryAt: null });
  return inWindow;
}

describe('POST /deliveries/recover', () => {
  it('a dry run counts the failed deliveries of the window and type, and changes nothing', async () => {
    await seedOutage();
    const before = await h.snapshot();
    const all = await recover({ since: T0, until: T0 + DAY, dryRun: true });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ matched: 4 });
    const typed = await recover({ since: T0, until: T0 + DAY, eventTypes: ['job_created'], dryRun: true });
    expect(typed.body).toEqual({ matched: 3 });
    const two = await recover({
      since: T0,
      until: T0 + DAY,
      eventTypes: ['quote_approved', 'job_created', 'job_created'],
      dryRun: true,
    });
    expect(two.body, 'types add up; duplicates count once').toEqual({ matched: 4 });
    expect(await h.snapshot()).toBe(before);
    expect(h.queue.enqueued).toEqual([]);
  });

  it('starts a recovery: 202 with its id and count, then readable as running', async () => {
    await seedOutage();
    const started = await recover({ since: T0, until: T0 + DAY, eventTypes: ['job_created'] });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ recoveryId: expect.any(String), matched: 3 });
    const read = await getRecovery(started.body.recoveryId);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id: started.body.recoveryId,
      status: 'running',
      matched: 3,
      replayed: 0,
      since: T0,
      until: T0 + DAY,
      eventTypes: ['job_created'],
      createdAt: expect.any(Number),
      completedAt: null,
    });
  });

  it('until defaults to now; a window in the future is empty', async () => {
    await seedOutage();
    const before = Date.now();
    const started = await recover({ since: T0 });
    expect(started.body.matched, 'every failed one from T0 on, of any type').toBe(4);
    const read = await getRecovery(started.body.recoveryId);
    expect(read.body.until).toBeGreaterThanOrEqual(before);
    expect(read.body.eventTypes).toBeNull();
    const future = await recover({ since: Date.now() + DAY, dryRun: true });
    expect(future.body).toEqual({ matched: 0 });
  });

  it('a second recovery while one runs is 409 recovery_in_progress naming it; another agency is not blocked', async () => {
    await seedOutage();
    const first = await recover({ since: T0 });
    const second = await recover({ since: T0, until: T0 + DAY });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({
      code: 'recovery_in_progress',
      details: { recoveryId: first.body.recoveryId },
    });
    const dryRun = await recover({ since: T0, dryRun: true });
    expect(dryRun.status, 'a dry run starts nothing, so it is never in conflict').toBe(200);
    const other = await recover({ since: T0 }, TOKENS.otherOwner);
    expect(other.status).toBe(202);
    expect(other.body.matched).toBe(1);
  });

  it.each<[string, object, string[]]>([
    ['since after until', { since: T0 + 1, until: T0 }, ['since', 'until']],
    ['no since', { until: T0 }, ['since']],
    ['a negative since', { since: -1 }, ['since']],
    ['since as a string', { since: String(T0) }, ['since']],
    ['an empty eventTypes', { since: T0, eventTypes: [] }, ['eventTypes']],
    ['a malformed event type', { since: T0, eventTypes: ['Job Created'] }, ['eventTypes.0']],
    ['dryRun not a boolean', { since: T0, dryRun: 'yes' }, ['dryRun']],
    ['an unknown field', { since: T0, status: 'failed' }, ['']],
  ])('refuses %s with 400 validation_failed and starts nothing', async (_name, body, paths) => {
    await seedOutage();
    const before = await h.snapshot();
    const res = await recover(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    const issuePaths = res.body.error.details.issues.map((issue: { path: string }) => issue.path);
    for (const path of paths) expect(issuePaths).toContain(path);
    expect(await h.snapshot()).toBe(before);
    expect((await recover({ since: T0 })).status, 'nothing was started').toBe(202);
  });

  it.each<[string, boolean]>([
    ['a start', false],
    ['a dry run', true],
  ])(
    '%s naming an unknown event type is 400 validation_failed naming it; nothing is stored',
    async (_name, dryRun) => {
      await seedOutage();
      const before = await h.snapshot();
      const res = await recover({ since: T0, until: T0 + DAY, eventTypes: ['no_such_event'], dryRun });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'validation_failed',
        details: { issues: [{ path: 'eventTypes.0', message: 'Unknown event type "no_such_event"' }] },
      });
      expect(res.body.error.message).toContain('"no_such_event"');
      expect(await h.snapshot()).toBe(before);
      expect((await listRecoveries()).body).toEqual({ recoveries: [], nextCursor: null });
    },
  );

  it('known and unknown event types mixed: 400 naming only the unknown ones; nothing is stored', async () => {
    await seedOutage();
    const res = await recover({
      since: T0,
      eventTypes: ['job_created', 'job_craeted', 'quote_approved', 'no_such_event'],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.issues).toEqual([
      { path: 'eventTypes.1', message: 'Unknown event type "job_craeted"' },
      { path: 'eventTypes.3', message: 'Unknown event type "no_such_event"' },
    ]);
    expect(res.body.error.message).toContain('"job_craeted", "no_such_event"');
    expect(res.body.error.message).not.toContain('"job_created"');
    expect((await listRecoveries()).body.recoveries).toEqual([]);
    expect(h.queue.enqueued).toEqual([]);
  });

  it('accepts the host’s own event types, as PUT /config does', async () => {
    const custom = defineEvent({
      type: 'job_fulfilment_started',
      entityType: 'job',
      metadata: z.strictObject({ jobId: z.string() }),
    });
    h = createHarness({ service: { events: createEventCatalogue([custom]) } });
    await failedAt(T0, { eventType: 'job_fulfilment_started' });
    const res = await recover({ since: T0, eventTypes: ['job_fulfilment_started'], dryRun: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ matched: 1 });
  });

  it('needs the owner or admin role', async () => {
    const res = await recover({ since: T0 }, TOKENS.agent);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

describe('GET /recoveries/:id and POST /recoveries/:id/cancel', () => {
  it('an unknown id and another agency’s id both answer 404 recovery_not_found', async () => {
    await seedOutage();
    const started = await recover({ since: T0 });
    for (const res of [
      await getRecovery('no-such-recovery'),
      await getRecovery(started.body.recoveryId, TOKENS.otherOwner),
      await cancel('no-such-recovery'),
      await cancel(started.body.recoveryId, TOKENS.otherOwner),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('recovery_not_found');
    }
    expect((await getRecovery(started.body.recoveryId)).body.status, 'not cancelled by agency 2').toBe(
      'running',
    );
  });

  it('cancel stops a running recovery, is idempotent, and frees the agency for the next one', async () => {
    await seedOutage();
    const started = await recover({ since: T0 });
    const cancelled = await cancel(started.body.recoveryId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: started.body.recoveryId, status: 'cancelled', replayed: 0 });
    expect(cancelled.body.completedAt).toEqual(expect.any(Number));
    const again = await cancel(started.body.recoveryId);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancelled.body);
    expect((await getRecovery(started.body.recoveryId)).body).toEqual(cancelled.body);
    expect((await recover({ since: T0 })).status).toBe(202);
  });

  it('a completed recovery cannot be cancelled: 409 recovery_not_running', async () => {
    const started = await recover({ since: T0 });
    const stored = await h.service.store.getRecovery(started.body.recoveryId);
    await h.service.store.updateRecovery(stored!.id, stored!.version, {
      status: 'completed',
      completedAt: T0,
    });
    const res = await cancel(started.body.recoveryId);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'recovery_not_running', details: { status: 'completed' } });
    expect((await getRecovery(started.body.recoveryId)).body.status).toBe('completed');
  });
});

describe('GET /recoveries', () => {
  it('lists the agency’s recoveries of every status, newest first, page by page; not another agency’s', async () => {
    await seedOutage();
    const first = await recover({ since: T0 });
    await cancel(first.body.recoveryId);
    const second = await recover({ since: T0 + 1000 });
    const all = await listRecoveries();
    expect(all.status).toBe(200);
    expect(all.body.recoveries.map((recovery: { id: string }) => recovery.id)).toEqual([
      second.body.recoveryId,
      first.body.recoveryId,
    ]);
    expect(all.body.recoveries[0]).toEqual((await getRecovery(second.body.recoveryId)).body);
    expect(all.body.recoveries[1].status).toBe('cancelled');
    expect(all.body.nextCursor).toBeNull();

    const page = await listRecoveries({ limit: '1' });
    expect(page.body.recoveries).toHaveLength(1);
    const next = await listRecoveries({ limit: '1', cursor: page.body.nextCursor });
    expect(next.body.recoveries.map((recovery: { id: string }) => recovery.id)).toEqual([
      first.body.recoveryId,
    ]);
    expect(next.body.nextCursor).toBeNull();

    const other = await listRecoveries({}, TOKENS.otherOwner);
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ recoveries: [], nextCursor: null });
  });

  it.each([
    ['limit 0', { limit: '0' }],
    ['limit 101', { limit: '101' }],
    ['a cursor it did not make', { cursor: 'not-a-cursor' }],
    ['an unknown parameter', { status: 'running' }],
  ])('answers 400 validation_failed for %s, and changes nothing', async (_name, query) => {
    await recover({ since: T0 });
    const before = await h.snapshot();
    const res = await listRecoveries(query);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(await h.snapshot()).toEqual(before);
  });
});
