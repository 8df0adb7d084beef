/**
 * `pnpm --filter @svc/bench run recovery-page`: what walking a bulk recovery costs,
 * with the store replaying each page in one step (`replayRecoveryPage`: a script on
 * Redis, a statement on PostgreSQL) against the walk without it (read the page, open
 * it, a compare-and-set per delivery: what the worker does on a store without the
 * method). Only the walk is timed, no delivery: one agency's failed deliveries (as the
 * worker leaves them, with a last update), 100 per page, each page's replays queued in
 * one call and the page closed; on Redis's linked pair, its separate store and queue,
 * and PostgreSQL; with the test data's small payload and with 20 KB ones. Reports the
 * worker's CPU (this process), Redis' CPU (`INFO cpu`) and the walk's wall time,
 * medians of the rounds. Writes the `recovery-page` section of docs/benchmarks.md
 * (`--no-write`: print only).
 *
 * Environment: BENCH_ROUNDS (3), BENCH_RECOVERED (10000), REDIS_URL, DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import type { DeliveryQueue, DeliveryRecord, RecoveryRecord, WebhookStore } from '@svc/webhooks-core';
import { replayUpdate } from '@svc/webhooks-core/adapter-kit';
import { makeDeliveryRecord, makeRecoveryRecord } from '@svc/webhooks-core/testing';
import { Redis } from 'ioredis';
import { createIdGenerator } from '../../packages/core/src/ids';
import { createPgQueue, createPgStore } from '../../packages/pg/src/index';
import { createRedisQueue, createRedisStore, createRedisWebhooks } from '../../packages/redis/src/index';
import { median } from '../isolation/summary';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { createBenchPool, freshSchema } from '../pg/bench-database';
import { removeKeysUnder } from '../redis/redis-keys';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RECOVERED = Number(process.env.BENCH_RECOVERED ?? 10_000);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PAGE_SIZE = 100;
const REPLAYS_AT_ONCE = 32;
const T0 = 1_700_000_000_000;
const AGENCY = 'agency-recovered';
const RUN_ID = randomBytes(3).toString('hex');
const write = !process.argv.includes('--no-write');

type Backend = 'Redis, linked' | 'Redis, separate' | 'PostgreSQL';
const BACKENDS: readonly Backend[] = ['Redis, linked', 'Redis, separate', 'PostgreSQL'];
type Path = 'in the store' | 'through the worker';
const PAYLOADS = { small: 0, '20 KB': 20_000 } as const;
type Payload = keyof typeof PAYLOADS;

interface Cost {
  workerMs: number;
  /** Redis' CPU; null on PostgreSQL, whose server CPU this benchmark does not read. */
  redisMs: number | null;
  wallMs: number;
}

interface Opened {
  store: WebhookStore;
  queue: DeliveryQueue;
  /** Redis' CPU so far, in ms; null on PostgreSQL. */
  serverCpuMs(): Promise<number | null>;
  close(): Promise<void>;
}

async function open(backend: Backend, name: string): Promise<Opened> {
  if (backend === 'PostgreSQL') {
    const schema = `bench_page_${RUN_ID}_${name.replace('postgresql_', '')}`;
    const pool = createBenchPool(8);
    await freshSchema(pool, schema);
    return {
      store: createPgStore({ pool, schema }),
      queue: createPgQueue({ pool, schema }),
      serverCpuMs: async () => null,
      async close() {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.end();
      },
    };
  }
  const prefix = `whk-bench-recovery-page:${RUN_ID}:${name}:`;
  const redis = new Redis(REDIS_URL);
  const linked = backend === 'Redis, linked' ? createRedisWebhooks({ redis, prefix }) : null;
  const store = linked?.store ?? createRedisStore({ redis, prefix });
  const queue = linked?.queue ?? createRedisQueue({ redis, prefix });
  return {
    store,
    queue,
    serverCpuMs: () => redisCpuMs(redis),
    async close() {
      await (linked ? linked.close() : Promise.all([store.close?.(), queue.close?.()]));
      await removeKeysUnder(redis, prefix);
      await redis.quit();
    },
  };
}

async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

async function insertFailed(store: WebhookStore, payloadBytes: number): Promise<void> {
  let createdAt = T0;
  const idAtCreation = createIdGenerator({ now: () => createdAt });
  for (let start = 0; start < RECOVERED; start += 250) {
    const batch = Array.from({ length: Math.min(250, RECOVERED - start) }, (_, offset) => {
      createdAt = T0 + start + offset;
      return makeDeliveryRecord({
        id: idAtCreation(),
        agencyId: AGENCY,
        attempt: 4,
        createdAt,
        ...(payloadBytes > 0 ? { payload: { notes: 'x'.repeat(payloadBytes) } } : {}),
      });
    });
    await Promise.all(
      batch.map(async (record) => {
        await store.insertDelivery(record);
        await store.updateDelivery(
          record.id,
          { status: 'pending', attempt: 4 },
          {
            status: 'failed',
            attempt: 5,
            maxAttempts: 5,
            nextRetryAt: null,
            lastAttemptAt: T0 + RECOVERED,
            deliveredAt: null,
            lastResponseCode: 503,
            lastErrorMessage: 'Receiver answered HTTP 503',
            lastResponseExcerpt: 'Service Unavailable',
            nextAttemptTrigger: 'automatic',
          },
        );
      }),
    );
  }
}

/** One page the way the worker walks it without `replayRecoveryPage`. Resolves with the open page's record. */
async function pageThroughWorker(
  store: WebhookStore,
  queue: DeliveryQueue,
  record: RecoveryRecord,
  now: number,
) {
  const page = await store.listDeliveries(AGENCY, {
    status: 'failed',
    createdSince: record.since,
    createdBefore: record.until,
    beforeId: record.cursorId ?? undefined,
    limit: PAGE_SIZE,
  });
  const last = page.at(-1);
  if (!last) return null;
  const opened = await store.updateRecovery(record.id, record.version, {
    pageEndId: last.id,
    leaseUntil: now,
  });
  let next = 0;
  const replayed: DeliveryRecord[] = [];
  const lane = async () => {
    while (next < page.length) {
      const delivery = page[next++] as DeliveryRecord;
      const expected = { status: delivery.status, attempt: delivery.attempt };
      const saved = await store.updateDelivery(
        delivery.id,
        expected,
        replayUpdate(delivery, now, 'recovery'),
      );
      if (saved) replayed.push(saved);
    }
  };
  await Promise.all(Array.from({ length: REPLAYS_AT_ONCE }, lane));
  await queue.enqueueMissing?.(
    replayed.map((saved) => ({ deliveryId: saved.id, agencyId: AGENCY, runAt: now })),
  );
  return opened;
}

async function pageInStore(store: WebhookStore, queue: DeliveryQueue, record: RecoveryRecord, now: number) {
  const replay = await store.replayRecoveryPage?.(record, { limit: PAGE_SIZE, now, leaseUntil: now });
  if (!replay || replay.recovery.pageEndId === null) return null;
  await queue.enqueueMissing?.(
    replay.replayedIds.map((deliveryId) => ({ deliveryId, agencyId: AGENCY, runAt: now })),
  );
  return replay.recovery;
}

async function measure(backend: Backend, path: Path, payload: Payload): Promise<Cost> {
  const name = `${backend}-${payload}-${path}`.replace(/[^a-z0-9]+/gi, '_').toLowerCase();
  const { store, queue, serverCpuMs, close } = await open(backend, name);
  try {
    await insertFailed(store, PAYLOADS[payload]);
    let { recovery } = await store.createRecovery(
      makeRecoveryRecord({ agencyId: AGENCY, since: T0, until: T0 + RECOVERED, matched: RECOVERED }),
    );
    const step = path === 'in the store' ? pageInStore : pageThroughWorker;
    const serverBefore = await serverCpuMs();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (;;) {
      const opened = await step(store, queue, recovery, T0 + RECOVERED);
      if (!opened) break;
      const closed = await store.updateRecovery(opened.id, opened.version, {
        cursorId: opened.pageEndId,
        pageEndId: null,
      });
      if (!closed) throw new Error('the walk lost its recovery');
      recovery = closed;
    }
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const serverAfter = await serverCpuMs();
    const pending = await store.countDeliveries?.(AGENCY, { status: 'pending' });
    if (pending !== RECOVERED) throw new Error(`${backend} ${path}: ${pending} of ${RECOVERED} replayed`);
    const redisMs = serverAfter === null || serverBefore === null ? null : serverAfter - serverBefore;
    return { workerMs: (cpu.user + cpu.system) / 1000, redisMs, wallMs };
  } finally {
    await close();
  }
}

async function main(): Promise<void> {
  const runs = new Map<string, Cost[]>();
  const key = (backend: Backend, payload: Payload, path: Path) => `${backend}/${payload}/${path}`;
  const paths: Path[] = ['in the store', 'through the worker'];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const backend of BACKENDS) {
      for (const payload of Object.keys(PAYLOADS) as Payload[]) {
        // Alternating which path goes first spreads the machine's drift over both.
        for (const path of round % 2 ? paths : [...paths].reverse()) {
          const cost = await measure(backend, path, payload);
          runs.set(key(backend, payload, path), [...(runs.get(key(backend, payload, path)) ?? []), cost]);
          console.log(
            `round ${round} ${backend} ${payload} ${path}: worker ${cost.workerMs.toFixed(0)} ms, Redis ${cost.redisMs?.toFixed(0) ?? '–'} ms, wall ${cost.wallMs.toFixed(0)} ms`,
          );
        }
      }
    }
  }
  const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;
  const rows = [...runs.entries()].map(([name, costs]) => {
    const [backend, payload, path] = name.split('/') as [string, string, string];
    const redis = costs.flatMap((cost) => (cost.redisMs === null ? [] : [cost.redisMs]));
    return [
      backend,
      payload,
      path,
      ms(median(costs.map((cost) => cost.workerMs))),
      redis.length > 0 ? ms(median(redis)) : '–',
      ms(median(costs.map((cost) => cost.wallMs))),
    ];
  });
  const markdown = `## A recovery's walk (\`bench/recovery/page-cost.ts\`)

${describeMachine()}; ${ROUNDS} rounds, medians.
One agency's ${RECOVERED.toLocaleString('en-US')} failed deliveries walked in pages of ${PAGE_SIZE}, with nothing delivered:
each page replayed by the store in one step (\`replayRecoveryPage\`, the default: a script on Redis, a statement on
PostgreSQL), or read by the worker and replayed with a compare-and-set per delivery (what a store without the method
costs); then the page's replays queued in one call and the page closed. Worker: this process's CPU time; Redis: the
server's (\`INFO cpu\`; PostgreSQL's is not read).

${markdownTable(['backend', 'payload', 'page replayed', 'worker CPU', 'Redis CPU', 'walk took'], rows)}
`;
  console.log(markdown);
  if (write) writeBenchSection('recovery-page', markdown);
}

await main();
