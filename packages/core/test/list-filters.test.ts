import { beforeEach, describe, expect, it } from 'vitest';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  type DeliveryRecord,
  type WebhookService,
} from '../src/index';
import { BASE_TIME, makeDeliveryRecord } from '../src/testing/delivery-record-builder';

let webhooks: WebhookService;
/** agency-a's deliveries, oldest first: one a minute, types and entities alternating. */
let seeded: DeliveryRecord[];

const MINUTE = 60_000;

beforeEach(async () => {
  webhooks = createWebhookService({ store: createMemoryStore(), queue: createMemoryQueue() });
  seeded = [];
  for (let index = 0; index < 30; index++) {
    const record = makeDeliveryRecord({
      agencyId: 'agency-a',
      eventType: index % 2 === 0 ? 'job_created' : 'job_cancelled',
      entityId: `job-${index % 3}`,
      status: index % 5 === 0 ? 'failed' : 'success',
      createdAt: BASE_TIME + index * MINUTE,
    });
    await webhooks.store.insertDelivery(record);
    seeded.push(record);
  }
  await webhooks.store.insertDelivery(makeDeliveryRecord({ agencyId: 'agency-b', eventType: 'job_created' }));
});

/** Ids of agency-a's seeded deliveries that pass `keep`, newest first. */
function newest(keep: (record: DeliveryRecord) => boolean): string[] {
  return seeded
    .filter(keep)
    .map((record) => record.id)
    .reverse();
}

async function ids(query: Parameters<WebhookService['listDeliveries']>[1]): Promise<string[]> {
  return (await webhooks.listDeliveries('agency-a', query)).deliveries.map((delivery) => delivery.id);
}

describe('listDeliveries(agencyId, { eventType, entityId, since, until })', () => {
  it('filters by event type and by entity, combined with status', async () => {
    expect(await ids({ eventType: 'job_created', limit: 100 })).toEqual(
      newest((record) => record.eventType === 'job_created'),
    );
    expect(await ids({ entityId: 'job-1', limit: 100 })).toEqual(
      newest((record) => record.entityId === 'job-1'),
    );
    expect(
      await ids({ eventType: 'job_cancelled', entityId: 'job-2', status: 'failed', limit: 100 }),
    ).toEqual(
      newest(
        (record) =>
          record.eventType === 'job_cancelled' && record.entityId === 'job-2' && record.status === 'failed',
      ),
    );
  });

  it('since is inclusive and until exclusive, both on createdAt (epoch ms, as digits or numbers)', async () => {
    const since = BASE_TIME + 10 * MINUTE;
    const until = BASE_TIME + 20 * MINUTE;
    const window = newest((record) => record.createdAt >= since && record.createdAt < until);
    expect(window).toHaveLength(10);
    expect(await ids({ since: String(since), until: String(until), limit: '100' } as never)).toEqual(window);
    expect(await ids({ since, until, limit: 100 })).toEqual(window);
    expect(await ids({ since: until, until, limit: 100 }), 'since equal to until: an empty window').toEqual(
      [],
    );
  });

  it('pages a filtered list with nextCursor, each match once, when the filters are sent again', async () => {
    const query = { eventType: 'job_created', since: BASE_TIME + 5 * MINUTE, limit: 4 };
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await webhooks.listDeliveries('agency-a', { ...query, cursor });
      seen.push(...result.deliveries.map((delivery) => delivery.id));
      if (result.nextCursor === null) break;
      cursor = result.nextCursor;
    }
    expect(seen).toEqual(
      newest((record) => record.eventType === 'job_created' && record.createdAt >= BASE_TIME + 5 * MINUTE),
    );
  });

  it('takes an event type the agency never subscribed to, or the catalogue does not know: an empty page', async () => {
    expect(await ids({ eventType: 'property_created' })).toEqual([]);
    expect(await ids({ eventType: 'not_in_the_catalogue' })).toEqual([]);
  });

  const invalid: [string, Record<string, unknown>, string[]][] = [
    ['since after until', { since: '2000', until: '1000' }, ['since', 'until']],
    ['since with an exponent', { since: '1e12' }, ['since']],
    ['until with a sign', { until: '+5' }, ['until']],
    ['a negative since', { since: '-1' }, ['since']],
    ['a fractional until', { until: '10.5' }, ['until']],
    ['an empty since', { since: '' }, ['since']],
    ['since past the largest safe integer', { since: '9007199254740993' }, ['since']],
    ['since given twice', { since: ['1', '2'] }, ['since']],
    ['an event type in camelCase', { eventType: 'jobCreated' }, ['eventType']],
    ['an event type with a dash', { eventType: 'job-created' }, ['eventType']],
    ['an event type of 101 characters', { eventType: 'a'.repeat(101) }, ['eventType']],
    ['an empty entity id', { entityId: '' }, ['entityId']],
    ['an entity id of 201 characters', { entityId: 'e'.repeat(201) }, ['entityId']],
    ['an unknown parameter', { from: '1000' }, ['']],
  ];

  it.each(invalid)('%s → validation_failed at %j, nothing listed', async (_name, query, paths) => {
    const failure = await webhooks
      .listDeliveries('agency-a', query as never)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'validation_failed' });
    const issues = (failure as { details: { issues: { path: string; message: string }[] } }).details.issues;
    expect([...new Set(issues.map((issue) => issue.path))]).toEqual(paths);
  });

  it('names both fields and the bounds’ meaning when since is after until', async () => {
    const failure = await webhooks
      .listDeliveries('agency-a', { since: 2000, until: 1000 })
      .catch((error: unknown) => error);
    expect((failure as Error).message).toBe(
      'Invalid delivery list query at "since": since (2000) is after until (1000): since is inclusive, until exclusive.',
    );
  });
});
