import { jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import type { DeliveryQueue } from '@svc/webhooks-core';
import type pg from 'pg';
import { afterAll, afterEach, expect, it } from 'vitest';
import { createPgQueue, createPgStore, migrate, SCHEMA_VERSION } from '../src/index';
import { createSchemaAtVersion, oldReleaseStatements } from './old-release';
import { createTestPool, describePg, dropSchema, uniqueSchemaName } from './pg-test-database';

/** How long the worker waits on the unmigrated schema while the release before emits. */
const WAIT_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `queue` with its claim() calls counted. */
function countingClaims(queue: DeliveryQueue): { queue: DeliveryQueue; claims: () => number } {
  let claims = 0;
  const counted = new Proxy(queue, {
    get(target, key) {
      if (key === 'claim') {
        return (options: Parameters<DeliveryQueue['claim']>[0]) => {
          claims += 1;
          return target.claim(options);
        };
      }
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { queue: counted, claims: () => claims };
}

/** Counts the statements sent through `pool.query` (every adapter statement goes that way). */
function countQueries(pool: pg.Pool): () => number {
  let queries = 0;
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    queries += 1;
    return query(...args);
  }) as typeof pool.query;
  return () => queries;
}

/** Emits as the release before does, about 200 a second, until `stop()`. */
function emitAsReleaseBefore(pool: pg.Pool, schema: string) {
  const sql = oldReleaseStatements(schema, SCHEMA_VERSION - 1);
  let stopped = false;
  let emitted = 0;
  const loop = (async () => {
    while (!stopped) {
      emitted += 1;
      await pool.query({ ...sql.insert, values: sql.insertValues('agency-a', `old-${emitted}`) });
      await sleep(5);
    }
  })();
  return {
    async stop(): Promise<number> {
      stopped = true;
      await loop;
      return emitted;
    },
  };
}

describePg('a worker started before migrate()', () => {
  const pool = createTestPool();
  const other = createTestPool({ max: 2 });
  let schema = '';
  let harness: ServiceHarness | undefined;
  let closeQueue: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await harness?.close();
    await closeQueue?.();
    harness = undefined;
    await dropSchema(other, schema);
  });
  afterAll(async () => {
    await Promise.all([pool.end(), other.end()]);
  });

  it('claims about once a second while the release before emits, then delivers on its own once migrated', async () => {
    schema = uniqueSchemaName('wh_waiting');
    await createSchemaAtVersion(other, schema, SCHEMA_VERSION - 1);
    const queries = countQueries(pool);
    const pgQueue = createPgQueue({ pool, schema });
    closeQueue = () => pgQueue.close!();
    const { queue, claims } = countingClaims(pgQueue);
    const errors: unknown[] = [];
    const started = await startServiceHarness({
      store: () => createPgStore({ pool, schema }),
      queue: () => queue,
      // The harness polls every 20 ms: a failing claim must still wait a second.
      worker: { pollIntervalMs: 20 },
      service: { hooks: { onError: (error) => errors.push(error) } },
    });
    harness = started;
    await other.query(
      `INSERT INTO "${schema}".webhook_configs
         (id, agency_id, webhook_url, signing_secret, enabled, subscribed_event_types, created_at, updated_at)
       VALUES ('cfg-a', 'agency-a', $1, $2, true, '{job_cancelled,job_created}', 0, 0)`,
      [started.receiver.urlFor('/hooks'), 'a'.repeat(64)],
    );
    const emitter = emitAsReleaseBefore(other, schema);
    const before = { claims: claims(), queries: queries() };
    await sleep(WAIT_MS);
    const during = { claims: claims() - before.claims, queries: queries() - before.queries };
    const emitted = await emitter.stop();
    console.info(
      `waiting worker, ${WAIT_MS / 1000} s beside ${emitted} emits: ${during.claims} claims, ` +
        `${during.queries} statements`,
    );
    expect(emitted, 'emits of the release before').toBeGreaterThan(100);
    expect(during.claims, 'claims while not migrated').toBeLessThanOrEqual(WAIT_MS / 1000 + 1);
    expect(during.queries, 'statements while not migrated').toBeLessThanOrEqual(3 * (WAIT_MS / 1000 + 1));
    expect(errors[0], 'what the worker reports').toMatchObject({ code: 'schema_not_migrated' });

    await migrate({ pool: other, schema });
    const migratedAt = Date.now();
    await started.receiver.waitForRequests(1, 5_000);
    console.info(`first delivery ${Date.now() - migratedAt} ms after migrate()`);
    const emitted2 = await started.webhooks.emit(jobCancelled('agency-a'));
    await started.waitForStatus('agency-a', emitted2!.deliveryId, 'success');
  }, 30_000);
});
