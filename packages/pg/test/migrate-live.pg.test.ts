import type pg from 'pg';
import { afterAll, afterEach, expect, it } from 'vitest';
import { getSchemaVersion, migrate, SCHEMA_VERSION } from '../src/index';
import { renderMigration } from '../src/schema/migration';
import { MIGRATIONS } from '../src/schema/migration-list';
import { createSchemaAtVersion, startOldReleaseTraffic } from './old-release';
import { createTestPool, describePg, dropSchema, uniqueSchemaName } from './pg-test-database';
import { seedHistory } from './queue-fixtures';

/**
 * Rounds per earlier version: a deadlock depends on timing, so one clean round proves little.
 * `MIGRATE_LIVE_ROUNDS=5` runs the bar of docs/postgres.md.
 */
const ROUNDS = Number(process.env.MIGRATE_LIVE_ROUNDS ?? 3);
/** migrate() calls at once in each round, each on a pool of its own (another process, in production). */
const MIGRATORS = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describePg('migrate() while processes of an earlier release emit and deliver', () => {
  const pool = createTestPool();
  const traffic = createTestPool({ max: 8 });
  const migrators = Array.from({ length: MIGRATORS }, () => createTestPool({ max: 2 }));
  const schemas: string[] = [];
  const newSchema = () => {
    const schema = uniqueSchemaName('wh_live');
    schemas.push(schema);
    return schema;
  };
  afterEach(async () => {
    for (const schema of schemas.splice(0)) await dropSchema(pool, schema);
  });
  afterAll(async () => {
    await Promise.all([pool, traffic, ...migrators].map((each) => each.end()));
  });

  const earlier = Array.from({ length: SCHEMA_VERSION - 1 }, (_, index) => index + 1);
  it.each(earlier)(
    'from version %i: no deadlock, no failed statement, every caller resolves',
    async (version) => {
      for (let round = 0; round < ROUNDS; round++) {
        const schema = newSchema();
        await createSchemaAtVersion(pool, schema, version);
        // Enough rows that each index build takes a while, as on a table in use.
        await seedHistory(pool, schema, 20_000);
        const old = startOldReleaseTraffic(traffic, schema, version);
        await sleep(100);
        const results = await Promise.allSettled(migrators.map((each) => migrate({ pool: each, schema })));
        await sleep(100);
        const { done, errors } = await old.stop();

        expect(errors, `round ${round}: the earlier release's statements`).toEqual([]);
        expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
        const applied = results.flatMap((result) =>
          result.status === 'fulfilled' ? result.value.applied.map((step) => step.version) : [],
        );
        expect(
          applied.sort((a, b) => a - b),
          'each migration applied once',
        ).toEqual(earlier.filter((step) => step > version).concat(SCHEMA_VERSION));
        expect(await getSchemaVersion({ pool, schema })).toBe(SCHEMA_VERSION);
        expect(done, 'statements of the earlier release that ran').toBeGreaterThan(20);
        await dropSchema(pool, schemas.pop()!);
      }
    },
  );

  it('six callers at once on a fresh database all resolve, round after round', async () => {
    const callers = Array.from({ length: 6 }, () => createTestPool({ max: 1 }));
    try {
      for (let round = 0; round < 5; round++) {
        const schema = newSchema();
        const results = await Promise.allSettled(callers.map((each) => migrate({ pool: each, schema })));
        expect(
          results.filter((result) => result.status === 'rejected'),
          `round ${round}`,
        ).toEqual([]);
        const values = results.map(
          (result) => (result as PromiseFulfilledResult<{ toVersion: number }>).value,
        );
        expect(values.every((value) => value.toVersion === SCHEMA_VERSION)).toBe(true);
      }
    } finally {
      await Promise.all(callers.map((each) => each.end()));
    }
  });

  it.each(MIGRATIONS)(
    'migration $version declares every table lock its SQL takes, at its mode',
    async (migration) => {
      const schema = newSchema();
      await createSchemaAtVersion(pool, schema, migration.version - 1);
      const { rows } = await pool.query<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1`,
        [schema],
      );
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(renderMigration(migration, `"${schema}"`));
        const declared = Object.fromEntries(
          migration.locks.map((lock) => [
            lock.table,
            lock.mode === 'SHARE' ? 'ShareLock' : 'AccessExclusiveLock',
          ]),
        );
        const tables = rows.map((row) => row.name);
        expect(await strongestTableLocks(client, schema, tables)).toEqual(declared);
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    },
  );

  it('sends every statement inside a transaction and takes only transaction-scoped advisory locks', async () => {
    const schema = newSchema();
    await createSchemaAtVersion(pool, schema, 2);
    const sent: string[] = [];
    await migrate({ pool: recordingPool(pool, sent), schema });
    await migrate({ pool: recordingPool(pool, sent), schema });
    let open = false;
    for (const text of sent) {
      if (/^BEGIN\b/.test(text)) open = true;
      else if (/^(COMMIT|ROLLBACK)$/.test(text)) open = false;
      else expect(open, `outside a transaction: ${text.slice(0, 60)}`).toBe(true);
    }
    expect(sent.some((text) => text.includes('pg_advisory_xact_lock'))).toBe(true);
    expect(sent.filter((text) => /pg_advisory_(un)?lock\b/.test(text))).toEqual([]);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`);
    expect(rows[0].n, 'advisory locks left held').toBe(0);
  });

  it('waits for a host transaction holding the table, without holding anything itself meanwhile', async () => {
    const schema = newSchema();
    await createSchemaAtVersion(pool, schema, 2);
    const host = await pool.connect();
    try {
      await host.query('BEGIN');
      await host.query(
        `INSERT INTO "${schema}".webhook_configs VALUES ('a', 'c', 'u', 's', true, '{}', 1, 1)`,
      );
      await host.query(`SELECT count(*) FROM "${schema}".webhook_deliveries`);
      const migrating = migrate({ pool, schema });
      await sleep(1_500);
      // Between its tries, nothing of the migration is held: statements of others run.
      const started = Date.now();
      await traffic.query(`SELECT count(*) FROM "${schema}".webhook_deliveries`);
      expect(Date.now() - started).toBeLessThan(1_000);
      await host.query('COMMIT');
      expect((await migrating).toVersion).toBe(SCHEMA_VERSION);
    } finally {
      host.release();
    }
  });
});

/** PostgreSQL's table lock modes, weakest first. */
const MODES = [
  'AccessShareLock',
  'RowShareLock',
  'RowExclusiveLock',
  'ShareUpdateExclusiveLock',
  'ShareLock',
  'ShareRowExclusiveLock',
  'ExclusiveLock',
  'AccessExclusiveLock',
];

/** The strongest lock the backend holds on each table of `schema` that existed before its transaction. */
async function strongestTableLocks(client: pg.PoolClient, schema: string, tables: string[]) {
  const { rows } = await client.query<{ table: string; mode: string }>(
    `SELECT c.relname AS table, l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
      WHERE l.pid = pg_backend_pid() AND c.relkind = 'r' AND c.relnamespace = $1::regnamespace
        AND c.relname = ANY ($2::text[]) AND c.relname <> 'schema_migrations'`,
    [schema, tables],
  );
  const strongest = new Map<string, string>();
  for (const { table, mode } of rows) {
    if (MODES.indexOf(mode) > MODES.indexOf(strongest.get(table) ?? '')) strongest.set(table, mode);
  }
  return Object.fromEntries(strongest);
}

/** A pool whose connections record the text of every statement sent on them. */
function recordingPool(pool: pg.Pool, sent: string[]): pg.Pool {
  const connect = async () => {
    const client = await pool.connect();
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const recording = (...args: unknown[]) => {
      const [first] = args;
      sent.push((typeof first === 'string' ? first : (first as { text: string }).text).trim());
      return query(...args);
    };
    return Object.assign(Object.create(client) as pg.PoolClient, { query: recording });
  };
  return Object.assign(Object.create(pool) as pg.Pool, { connect });
}
