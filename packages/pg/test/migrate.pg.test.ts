import { SchemaNotMigratedError } from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import { afterAll, afterEach, expect, it } from 'vitest';
import {
  createPgQueue,
  createPgStore,
  createPgWebhooks,
  getSchemaVersion,
  migrate,
  SCHEMA_VERSION,
} from '../src/index';
import { migrationChecksum } from '../src/schema/migration';
import { MIGRATIONS } from '../src/schema/migration-list';
import { createSchemaAtVersion } from './old-release';
import { createTestPool, describePg, dropSchema, uniqueSchemaName } from './pg-test-database';
import { BASE_TIME, LEASE_MS, seedQueue } from './queue-fixtures';

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

  it('brings a version-1 schema holding data to the current version, keeping every row', async () => {
    const schema = newSchema();
    await createSchemaAtVersion(pool, schema, 1);
    expect(await getSchemaVersion({ pool, schema })).toBe(1);
    await pool.query(
      `INSERT INTO "${schema}".webhook_configs VALUES ('agency-a', 'cfg-a', 'https://hooks.example.com/a', $1, true, '{}', $2, $2)`,
      ['a'.repeat(64), BASE_TIME],
    );
    const finished = makeDeliveryRecord({
      agencyId: 'agency-a',
      status: 'success',
      attempt: 1,
      deliveredAt: BASE_TIME,
    });
    await pool.query(
      `INSERT INTO "${schema}".webhook_deliveries
         (id, agency_id, event_id, event_type, entity_type, payload, created_on, created_at, status, attempt,
          max_attempts, delivered_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, 'success', 1, 5, $7)`,
      [
        finished.id,
        finished.agencyId,
        finished.eventId,
        finished.eventType,
        finished.entityType,
        '{"k":1}',
        BASE_TIME,
      ],
    );
    await seedQueue(pool, schema, [
      { agencyId: 'agency-deep', count: 500, firstRunAt: BASE_TIME - 600_000 },
      { agencyId: 'agency-b', count: 1, firstRunAt: BASE_TIME - 1_000 },
      { agencyId: 'agency-c', count: 1, firstRunAt: BASE_TIME - 1_000 },
    ]);
    const before = await pool.query(`SELECT * FROM "${schema}".webhook_deliveries ORDER BY id`);

    const result = await migrate({ pool, schema });

    expect(result).toEqual({
      schema,
      fromVersion: 1,
      toVersion: SCHEMA_VERSION,
      applied: MIGRATIONS.slice(1).map(({ version, name }) => ({ version, name })),
    });
    const after = await pool.query(`SELECT * FROM "${schema}".webhook_deliveries ORDER BY id`);
    // Every column kept; the one version 4 adds reads its default.
    expect(after.rows, 'deliveries, every column').toEqual(
      before.rows.map((row) => ({ ...row, next_attempt_trigger: 'automatic' })),
    );
    const { store, queue, close } = createPgWebhooks({ pool, schema, notify: false });
    try {
      expect((await store.getConfig('agency-a'))?.webhookUrl).toBe('https://hooks.example.com/a');
      expect(await store.getDelivery(finished.id)).toMatchObject({ id: finished.id, status: 'success' });
      const claims = await queue.claim({ limit: 3, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: 8 });
      expect(claims.map((claim) => claim.agencyId).sort(), 'first claim of 3 after migrating').toEqual([
        'agency-b',
        'agency-c',
        'agency-deep',
      ]);
      const { rows } = await pool.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname = 'webhook_deliveries_agency_due_idx'`,
        [schema],
      );
      expect(rows, 'the agency index of fair claims').toHaveLength(1);
      const circuit = await store.saveCircuit('agency-a', null, {
        status: 'open',
        consecutiveFailures: 5,
        failingSince: BASE_TIME - 60_000,
        lastFailureAt: BASE_TIME,
        lastSuccessAt: null,
        openedAt: BASE_TIME,
        openUntil: BASE_TIME + 30_000,
        openings: 1,
        unsuccessfulAttempts: 5,
        unsuccessfulSince: BASE_TIME - 60_000,
      });
      expect(circuit?.version).toBe(1);
      expect(await store.getCircuit('agency-a')).toEqual(circuit);
    } finally {
      await close();
    }
  });

  it('adapters of this release refuse a version-1 schema until it is migrated', async () => {
    const schema = newSchema();
    await createSchemaAtVersion(pool, schema, 1);
    const queue = createPgQueue({ pool, schema, notify: false });
    const failure = await queue
      .claim({ limit: 1, leaseMs: LEASE_MS, now: BASE_TIME })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SchemaNotMigratedError);
    expect((failure as Error).message).toContain(
      `is at version 1 but this release needs version ${SCHEMA_VERSION}`,
    );
    await migrate({ pool, schema });
    expect(await queue.claim({ limit: 1, leaseMs: LEASE_MS, now: BASE_TIME })).toEqual([]);
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
      expect(applied.sort((a, b) => a - b)).toEqual(MIGRATIONS.map((migration) => migration.version));
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
