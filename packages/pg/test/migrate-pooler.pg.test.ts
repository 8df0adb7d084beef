import { afterAll, afterEach, expect, it } from 'vitest';
import { getSchemaVersion, migrate, SCHEMA_VERSION } from '../src/index';
import { schemaLockKey } from '../src/schema/migrate';
import { createSchemaAtVersion, startOldReleaseTraffic } from './old-release';
import {
  createPoolerPool,
  createTestPool,
  describePooler,
  dropSchema,
  uniqueSchemaName,
} from './pg-test-database';
import { seedHistory } from './queue-fixtures';

/** Rounds per earlier version (`MIGRATE_LIVE_ROUNDS=5` runs the bar of docs/postgres.md). */
const ROUNDS = Number(process.env.MIGRATE_LIVE_ROUNDS ?? 1);
/** migrate() calls at once in each round, each on a pool of its own through PgBouncer. */
const MIGRATORS = 4;
/** A whole migrate() from version 1 takes a few seconds here: far past this, it hangs. */
const HANG_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or a rejection once it took `ms`: a hang fails the round instead of the whole file. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still running after ${ms} ms`)), ms);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

/** migrate()'s advisory locks held anywhere (its two-key form puts its class in `classid`). */
/** Advisory locks of this library still held on `schema`'s key (other files migrate their own schemas meanwhile). */
async function advisoryLocksHeld(pool: ReturnType<typeof createTestPool>, schema: string): Promise<number> {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n FROM pg_locks
      WHERE locktype = 'advisory' AND classid = $1::bigint::oid AND objid = $2::bigint::oid`,
    [0x57484b31, schemaLockKey(schema) >>> 0],
  );
  return rows[0].n;
}

describePooler('migrate() through PgBouncer while an earlier release emits and delivers through it', () => {
  const direct = createTestPool();
  const traffic = createPoolerPool({ max: 8 });
  const migrators = Array.from({ length: MIGRATORS }, () => createPoolerPool({ max: 2 }));
  const schemas: string[] = [];
  const newSchema = () => {
    const schema = uniqueSchemaName('wh_pooled');
    schemas.push(schema);
    return schema;
  };
  afterEach(async () => {
    for (const schema of schemas.splice(0)) await dropSchema(direct, schema);
  });
  afterAll(async () => {
    await Promise.all([direct, traffic, ...migrators].map((each) => each.end()));
  });

  const earlier = Array.from({ length: SCHEMA_VERSION - 1 }, (_, index) => index + 1);
  it.each(earlier)(
    'from version %i: no deadlock, no failed statement, no hang, nothing left held',
    async (version) => {
      for (let round = 0; round < ROUNDS; round++) {
        const schema = newSchema();
        await createSchemaAtVersion(direct, schema, version);
        await seedHistory(direct, schema, 5_000);
        // The release before, through the pooler: unnamed statements, as it had to run there.
        const old = startOldReleaseTraffic(traffic, schema, version, { named: false });
        await sleep(100);
        const results = await Promise.allSettled(
          migrators.map((each) => within(migrate({ pool: each, schema }), HANG_MS, 'migrate()')),
        );
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
        expect(await getSchemaVersion({ pool: traffic, schema })).toBe(SCHEMA_VERSION);
        expect(done, 'statements of the earlier release that ran').toBeGreaterThan(20);
        // Nothing stays held on a pooled server connection: the next migrate() returns at once.
        expect(await advisoryLocksHeld(direct, schema), 'advisory locks left held').toBe(0);
        const again = await within(migrate({ pool: migrators[0]!, schema }), 10_000, 'the next migrate()');
        expect(again.applied).toEqual([]);
        await dropSchema(direct, schemas.pop()!);
      }
    },
  );

  it('six callers at once on a fresh database all resolve, round after round', async () => {
    const callers = Array.from({ length: 6 }, () => createPoolerPool({ max: 1 }));
    try {
      for (let round = 0; round < 5; round++) {
        const schema = newSchema();
        const results = await Promise.allSettled(
          callers.map((each) => within(migrate({ pool: each, schema }), HANG_MS, 'migrate()')),
        );
        expect(
          results.filter((result) => result.status === 'rejected'),
          `round ${round}`,
        ).toEqual([]);
        const values = results.map(
          (result) => (result as PromiseFulfilledResult<{ fromVersion: number; toVersion: number }>).value,
        );
        expect(values.every((value) => value.toVersion === SCHEMA_VERSION)).toBe(true);
        expect(values.filter((value) => value.fromVersion === 0 && value.toVersion > 0)).toHaveLength(1);
        expect(await advisoryLocksHeld(direct, schema)).toBe(0);
      }
    } finally {
      await Promise.all(callers.map((each) => each.end()));
    }
  });
});
