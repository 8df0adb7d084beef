import { SchemaNotMigratedError } from '@svc/webhooks-core';
import { afterAll, afterEach, expect, it } from 'vitest';
import { createPgStore, getSchemaVersion, migrate, SCHEMA_VERSION } from '../src/index';
import { migrationChecksum } from '../src/schema/migration';
import { MIGRATIONS } from '../src/schema/migration-list';
import { createTestPool, describePg, dropSchema, uniqueSchemaName } from './pg-test-database';

describePg('migrate({ pool, schema })', () => {
  const pool = createTestPool();
  const schemas: string[] = [];
  const newSchema = () => {
    const schema = uniqueSchemaName('wh_migrate');
    schemas.push(schema);
    return schema;
  };
  afterEach(async () => {
    for (const schema of schemas.splice(0)) await dropSchema(pool, schema);
  });
  afterAll(() => pool.end());

  it('creates the schema, applies every migration and records each in the ledger', async () => {
    const schema = newSchema();
    const result = await migrate({ pool, schema });
    expect(result).toEqual({
      schema,
      fromVersion: 0,
      toVersion: SCHEMA_VERSION,
      applied: MIGRATIONS.map(({ version, name }) => ({ version, name })),
    });
    const { rows } = await pool.query(
      `SELECT version, name, checksum FROM "${schema}".schema_migrations ORDER BY 1`,
    );
    expect(rows).toEqual(
      MIGRATIONS.map((migration) => ({
        version: migration.version,
        name: migration.name,
        checksum: migrationChecksum(migration),
      })),
    );
    expect(await getSchemaVersion({ pool, schema })).toBe(SCHEMA_VERSION);
  });

  it('is idempotent: a second run applies nothing and changes nothing', async () => {
    const schema = newSchema();
    await migrate({ pool, schema });
    const again = await migrate({ pool, schema });
    expect(again).toEqual({ schema, fromVersion: SCHEMA_VERSION, toVersion: SCHEMA_VERSION, applied: [] });
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".schema_migrations`);
    expect(rows[0].n).toBe(MIGRATIONS.length);
  });

  it('five pools migrating the same schema at once apply each migration exactly once', async () => {
    const schema = newSchema();
    const pools = Array.from({ length: 5 }, () => createTestPool({ max: 2 }));
    try {
      const results = await Promise.all(pools.map((each) => migrate({ pool: each, schema })));
      const applied = results.flatMap((result) => result.applied.map((step) => step.version));
      expect(applied.sort()).toEqual(MIGRATIONS.map((migration) => migration.version));
      expect(results.every((result) => result.toVersion === SCHEMA_VERSION)).toBe(true);
    } finally {
      await Promise.all(pools.map((each) => each.end()));
    }
  });

  it('refuses a database whose ledger records a different checksum for a shipped migration', async () => {
    const schema = newSchema();
    await migrate({ pool, schema });
    await pool.query(`UPDATE "${schema}".schema_migrations SET checksum = 'edited' WHERE version = 1`);
    await expect(migrate({ pool, schema })).rejects.toMatchObject({
      code: 'store_error',
      message: expect.stringMatching(/^@svc\/webhooks-pg: migration 1 \(create-tables\)/),
    });
  });

  it('rejects a schema name that is not a plain identifier, before touching the database', async () => {
    for (const schema of ['', '1abc', 'a"b', 'a;drop', 'a b', 'x'.repeat(51)]) {
      await expect(migrate({ pool, schema }), schema).rejects.toMatchObject({
        code: 'invalid_option',
        option: 'schema',
        message: expect.stringMatching(/^@svc\/webhooks-pg: Invalid PostgreSQL schema name/),
      });
    }
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM pg_namespace WHERE nspname IN ('1abc', 'a"b', 'a;drop', 'a b')`,
    );
    expect(rows[0].n).toBe(0);
  });

  it('an adapter on an unmigrated schema rejects with SchemaNotMigratedError naming migrate()', async () => {
    const schema = newSchema();
    const store = createPgStore({ pool, schema });
    const failure = await store.getConfig('agency-a').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SchemaNotMigratedError);
    expect(failure).toMatchObject({ code: 'schema_not_migrated' });
    expect((failure as Error).message).toMatch(/^@svc\/webhooks-pg: /);
    expect((failure as Error).message).toContain(`run migrate({ pool, schema: '${schema}' })`);
    // The failure is not remembered: once migrated, the same store works.
    await migrate({ pool, schema });
    expect(await store.getConfig('agency-a')).toBeNull();
  });

  it('an adapter on a schema older than it needs rejects with SchemaNotMigratedError', async () => {
    const schema = newSchema();
    await migrate({ pool, schema });
    await pool.query(`DELETE FROM "${schema}".schema_migrations WHERE version = $1`, [SCHEMA_VERSION]);
    const failure = await createPgStore({ pool, schema })
      .getDelivery('x')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SchemaNotMigratedError);
    expect((failure as Error).message).toContain(`version ${SCHEMA_VERSION - 1}`);
  });
});
