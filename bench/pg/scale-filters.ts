import type { ListDeliveriesQuery, WebhookService } from '@svc/webhooks-core';
import type pg from 'pg';
import type { LatencySummary } from './percentiles';

/** One filtered list measured at scale. */
export interface FilterCase {
  /** The call, as the report's table shows it. */
  name: string;
  summary: LatencySummary;
}

/** Times `operation` `samples` times after `warmup` untimed runs (scale.ts's timer). */
type Timer = (
  samples: number,
  warmup: number,
  operation: (index: number) => Promise<unknown>,
) => Promise<LatencySummary>;

/** Where the scale data set sits: its schema, the agency a sample uses, its first and last `createdAt`. */
export interface ScaleData {
  schema: string;
  agency: (index: number) => string;
  firstCreatedAt: number;
  lastCreatedAt: number;
}

const HOUR = 3_600_000;
const WARMUP = 200;

/** (agency, entity) pairs spread over the table, so each sample asks for a real entity of its agency. */
async function sampleEntities(pool: pg.Pool, schema: string, count: number) {
  const { rows } = await pool.query<{ agency_id: string; entity_id: string }>(
    `SELECT agency_id, entity_id FROM "${schema}".webhook_deliveries TABLESAMPLE SYSTEM (1)
      ORDER BY random() LIMIT $1`,
    [count],
  );
  return rows;
}

/**
 * The list's filters with 1,000,000 deliveries stored, through the service, one
 * call at a time: each filter alone and with a status, a window's second page,
 * and every filter at once. The windows sit mid-history (the walk steps over the
 * newer half) and, for `until` alone, in the oldest tenth (over nine tenths).
 */
export async function measureFilters(
  webhooks: WebhookService,
  pool: pg.Pool,
  data: ScaleData,
  samples: number,
  time: Timer,
): Promise<FilterCase[]> {
  const { agency } = data;
  const middle = Math.round((data.firstCreatedAt + data.lastCreatedAt) / 2);
  const hour = { since: middle, until: middle + HOUR };
  const oldestTenth = {
    until: data.firstCreatedAt + Math.round((data.lastCreatedAt - data.firstCreatedAt) / 10),
  };
  const entities = await sampleEntities(pool, data.schema, samples + WARMUP);
  const entity = (index: number) => entities[index % entities.length]!;
  const list = (agencyId: string, query: ListDeliveriesQuery) => webhooks.listDeliveries(agencyId, query);
  const cursors = await Promise.all(
    Array.from({ length: 50 }, async (_, index) => (await list(agency(index), hour)).nextCursor!),
  );
  const cases: Array<[string, (index: number) => Promise<unknown>]> = [
    ['`{ eventType }` (a type of 1 %)', (i) => list(agency(i), { eventType: 'job_cancelled' })],
    [
      "`{ eventType, status: 'failed' }`",
      (i) => list(agency(i), { eventType: 'job_cancelled', status: 'failed' }),
    ],
    ['`{ entityId }` (4 deliveries)', (i) => list(entity(i).agency_id, { entityId: entity(i).entity_id })],
    [
      "`{ entityId, status: 'failed' }`",
      (i) => list(entity(i).agency_id, { entityId: entity(i).entity_id, status: 'failed' }),
    ],
    ['`{ since, until }` (1 h, mid-history)', (i) => list(agency(i), hour)],
    ["`{ since, until, status: 'failed' }`", (i) => list(agency(i), { ...hour, status: 'failed' })],
    ['`{ until }` (the oldest tenth)', (i) => list(agency(i), oldestTenth)],
    [
      '`{ since, until, cursor }` (second page)',
      (i) => list(agency(i % 50), { ...hour, cursor: cursors[i % 50] }),
    ],
    [
      "`{ eventType, since, until, status: 'pending' }` (6 h)",
      (i) =>
        list(agency(i), {
          eventType: 'job_created',
          since: middle,
          until: middle + 6 * HOUR,
          status: 'pending',
        }),
    ],
    [
      "`{ eventType, entityId, since, until, status: 'success' }`",
      (i) =>
        list(entity(i).agency_id, {
          eventType: 'job_created',
          entityId: entity(i).entity_id,
          since: data.firstCreatedAt,
          until: data.lastCreatedAt,
          status: 'success',
        }),
    ],
  ];
  const measured: FilterCase[] = [];
  for (const [name, operation] of cases)
    measured.push({ name, summary: await time(samples, WARMUP, operation) });
  return measured;
}
