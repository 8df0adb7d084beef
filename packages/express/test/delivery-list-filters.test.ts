import type { DeliveryRecord } from '@svc/webhooks-core';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, TOKENS } from './router-harness';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
checkResponsesAgainstDocument(() => h);

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;

function get(path: string) {
  return request(h.app).get(`${BASE}${path}`).set('authorization', TOKENS.owner);
}

function idsOf(body: { deliveries: { id: string }[] }): string[] {
  return body.deliveries.map((delivery) => delivery.id);
}

/**
 * agency-1: six deliveries one a minute from T0 (oldest first), alternating
 * job_created / job_cancelled, about job-1, job-2 and job-3 in turn, every third
 * one failed; agency-2: one delivery alike in every filtered field.
 */
async function seed(): Promise<DeliveryRecord[]> {
  const seeded: DeliveryRecord[] = [];
  for (let index = 0; index < 6; index++) {
    seeded.push(
      await h.seedDelivery({
        agencyId: 'agency-1',
        eventType: index % 2 === 0 ? 'job_created' : 'job_cancelled',
        entityId: `job-${(index % 3) + 1}`,
        createdAt: T0 + index * MINUTE,
        ...(index % 3 === 2 ? { status: 'failed' as const, attempt: 5, nextRetryAt: null } : {}),
      }),
    );
  }
  await h.seedDelivery({ agencyId: 'agency-2', eventType: 'job_created', entityId: 'job-1', createdAt: T0 });
  return seeded;
}

/** Ids of `records` (oldest first) at these positions, newest first. */
function newest(records: readonly DeliveryRecord[], ...positions: number[]): string[] {
  return positions.sort((a, b) => b - a).map((position) => (records[position] as DeliveryRecord).id);
}

describe('GET /deliveries filters', () => {
  it('eventType lists that type only, whether subscribed or not', async () => {
    const records = await seed();
    const res = await get('/deliveries?eventType=job_cancelled');
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual(newest(records, 1, 3, 5));
    expect(idsOf((await get('/deliveries?eventType=property_created')).body)).toEqual([]);
  });

  it('entityId lists that entity only, exactly', async () => {
    const records = await seed();
    expect(idsOf((await get('/deliveries?entityId=job-2')).body)).toEqual(newest(records, 1, 4));
    expect(idsOf((await get('/deliveries?entityId=job-')).body)).toEqual([]);
  });

  it('since is inclusive and until exclusive (epoch ms of creation)', async () => {
    const records = await seed();
    const res = await get(`/deliveries?since=${T0 + MINUTE}&until=${T0 + 4 * MINUTE}`);
    expect(idsOf(res.body)).toEqual(newest(records, 1, 2, 3));
    expect(idsOf((await get(`/deliveries?since=${T0 + 4 * MINUTE}`)).body)).toEqual(newest(records, 4, 5));
    expect(idsOf((await get(`/deliveries?until=${T0 + MINUTE}`)).body)).toEqual(newest(records, 0));
    expect(idsOf((await get(`/deliveries?since=${T0}&until=${T0}`)).body), 'since = until').toEqual([]);
  });

  it('combines every filter with status, and pages the result with the same filters', async () => {
    const records = await seed();
    const failedCreated = await get('/deliveries?eventType=job_created&status=failed');
    expect(idsOf(failedCreated.body)).toEqual(newest(records, 2));
    const all = await get(
      `/deliveries?eventType=job_created&entityId=job-3&status=failed&since=${T0}&until=${T0 + 3 * MINUTE}`,
    );
    expect(idsOf(all.body)).toEqual(newest(records, 2));
    const first = await get(`/deliveries?since=${T0 + MINUTE}&limit=2`);
    expect(idsOf(first.body)).toEqual(newest(records, 4, 5));
    const cursor = encodeURIComponent(first.body.nextCursor as string);
    const second = await get(`/deliveries?since=${T0 + MINUTE}&limit=2&cursor=${cursor}`);
    expect(idsOf(second.body)).toEqual(newest(records, 2, 3));
    const third = await get(
      `/deliveries?since=${T0 + MINUTE}&limit=2&cursor=${encodeURIComponent(second.body.nextCursor as string)}`,
    );
    expect(idsOf(third.body)).toEqual(newest(records, 1));
    expect(third.body.nextCursor).toBeNull();
  });

  it('never lists another agency’s deliveries', async () => {
    const records = await seed();
    expect(idsOf((await get('/deliveries?entityId=job-1&eventType=job_created')).body)).toEqual(
      newest(records, 0),
    );
  });

  const invalid: [string, string, string[]][] = [
    ['since after until', `since=${T0 + 1}&until=${T0}`, ['since', 'until']],
    ['since with an exponent', 'since=1e12', ['since']],
    ['since in hex', 'since=0x10', ['since']],
    ['until with a decimal point', 'until=10.0', ['until']],
    ['until with a sign', 'until=%2B5', ['until']],
    ['a negative since', 'since=-1', ['since']],
    ['an empty until', 'until=', ['until']],
    ['since past the largest safe integer', 'since=99999999999999999999', ['since']],
    ['since given twice', 'since=1&since=2', ['since']],
    ['an event type in camelCase', 'eventType=jobCreated', ['eventType']],
    ['an event type with a space', 'eventType=job%20created', ['eventType']],
    ['eventType given twice', 'eventType=job_created&eventType=job_cancelled', ['eventType']],
    ['an empty entityId', 'entityId=', ['entityId']],
    ['an entityId of 201 characters', `entityId=${'e'.repeat(201)}`, ['entityId']],
    ['an unknown parameter', 'createdAfter=1', ['']],
  ];

  it.each(invalid)('%s → 400 validation_failed at %j', async (_name, query, paths) => {
    await seed();
    const res = await get(`/deliveries?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    const issues: { path: string }[] = res.body.error.details.issues;
    expect([...new Set(issues.map((issue) => issue.path))]).toEqual(paths);
  });

  it('names both bounds and what they mean when since is after until', async () => {
    const res = await get('/deliveries?since=2000&until=1000');
    expect(res.body.error.message).toContain('since (2000) is after until (1000)');
    expect(res.body.error.details.issues).toEqual([
      { path: 'since', message: expect.stringContaining('since is inclusive, until exclusive') },
      { path: 'until', message: expect.stringContaining('since is inclusive, until exclusive') },
    ]);
  });
});
