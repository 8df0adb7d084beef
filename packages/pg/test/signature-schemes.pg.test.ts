import { everythingIn, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { runStandardWebhooksScenario } from '@svc/test-support/standard-webhooks-scenario';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import { afterAll, afterEach, expect, it } from 'vitest';
import { insertParams } from '../src/delivery-row';
import { createPgStore, createPgWebhooks, getSchemaVersion, migrate } from '../src/index';
import { MIGRATIONS } from '../src/schema/migration-list';
import { parseSchemaName } from '../src/schema/schema-name';
import { run } from '../src/statement';
import { deliveryStatements } from '../src/store/delivery-statements';
import { createSchemaAtVersion, inHostTransaction } from './old-release';
import {
  createTestPool,
  createTestSchema,
  describePg,
  dropSchema,
  uniqueSchemaName,
} from './pg-test-database';

const BASE_TIME = 1_700_000_000_000;
const SCHEMES_VERSION = 9;

/** The configuration columns every statement of the release before version 9 names. */
const VERSION_8_COLUMNS =
  'id, agency_id, webhook_url, signing_secret, enabled, subscribed_event_types, created_at, updated_at, ' +
  'disabled_at, disabled_reason';

/** What migrating a schema the release before left applies: version 9, then every later one. */
function fromSchemesOn(): Array<{ version: number; name: string }> {
  return MIGRATIONS.filter((step) => step.version >= SCHEMES_VERSION).map(({ version, name }) => ({
    version,
    name,
  }));
}

/** The release before's upsert (named, so prepared on each connection like its adapter's). */
function version8Upsert(schema: string) {
  return {
    name: `v8_upsert_${schema}`,
    text: `INSERT INTO "${schema}".webhook_configs AS c
             (id, agency_id, webhook_url, signing_secret, enabled, subscribed_event_types, created_at, updated_at)
           VALUES ($1, $2, $3, $4, true, '{job_cancelled}', $5, $5)
           ON CONFLICT (agency_id) DO UPDATE SET webhook_url = EXCLUDED.webhook_url, updated_at = EXCLUDED.updated_at,
             disabled_at = NULL, disabled_reason = NULL
           RETURNING ${VERSION_8_COLUMNS}, (c.xmax = 0) AS created`,
  };
}

/** The release before's coalesced config read. */
function version8Read(schema: string) {
  return {
    name: `v8_read_${schema}`,
    text: `SELECT ${VERSION_8_COLUMNS} FROM "${schema}".webhook_configs WHERE agency_id = ANY ($1::text[])`,
  };
}

describePg('signature schemes on PostgreSQL: migration 9', () => {
  const pool = createTestPool();
  const schemas: string[] = [];
  const newSchema = () => {
    const schema = uniqueSchemaName('wh_schemes');
    schemas.push(schema);
    return schema;
  };
  afterEach(async () => {
    for (const schema of schemas.splice(0)) await dropSchema(pool, schema);
  });
  afterAll(() => pool.end());

  it("keeps every configuration, which reads as the 'service' scheme without keys, and checks the scheme", async () => {
    const schema = newSchema();
    await createSchemaAtVersion(pool, schema, SCHEMES_VERSION - 1);
    expect(await getSchemaVersion({ pool, schema })).toBe(SCHEMES_VERSION - 1);
    await pool.query(version8Upsert(schema), [
      'cfg-a',
      'agency-a',
      'https://hooks.example.com/a',
      'a'.repeat(64),
      BASE_TIME,
    ]);
    const before = await pool.query(`SELECT ${VERSION_8_COLUMNS} FROM "${schema}".webhook_configs`);

    const result = await migrate({ pool, schema });

    expect(result.applied[0]).toEqual({ version: SCHEMES_VERSION, name: 'signature-schemes' });
    expect(result.applied).toEqual(fromSchemesOn());
    expect((await pool.query(`SELECT ${VERSION_8_COLUMNS} FROM "${schema}".webhook_configs`)).rows).toEqual(
      before.rows,
    );
    const store = createPgStore({ pool, schema });
    expect(await store.getConfig('agency-a')).toMatchObject({
      webhookUrl: 'https://hooks.example.com/a',
      signatureScheme: 'service',
      signingKeys: [],
    });
    await expect(
      pool.query(`UPDATE "${schema}".webhook_configs SET signature_scheme = 'hmac'`),
      'the CHECK',
    ).rejects.toMatchObject({ code: '23514', constraint: 'webhook_configs_signature_scheme_check' });
    const { rows } = await pool.query(
      `SELECT column_name, data_type, column_default, is_nullable FROM information_schema.columns
        WHERE table_schema = $1 AND table_name = 'webhook_configs' AND column_name IN ('signature_scheme', 'signing_keys')
        ORDER BY column_name`,
      [schema],
    );
    expect(rows).toEqual([
      {
        column_name: 'signature_scheme',
        data_type: 'text',
        column_default: "'service'::text",
        is_nullable: 'NO',
      },
      { column_name: 'signing_keys', data_type: 'jsonb', column_default: "'[]'::jsonb", is_nullable: 'NO' },
    ]);
  });

  it('a configuration the release before writes after the migration keeps the new fields (create: defaults)', async () => {
    const { schema, drop } = await createTestSchema(pool);
    try {
      const store = createPgStore({ pool, schema });
      const keys = [
        { kid: 'whkey_1', privateKey: 'whsk_x', publicKey: 'whpk_x', createdAt: BASE_TIME, expiresAt: null },
      ];
      await store.upsertConfig({
        agencyId: 'agency-a',
        webhookUrl: 'https://hooks.example.com/a',
        enabled: true,
        subscribedEventTypes: [],
        now: BASE_TIME,
        newId: 'cfg-a',
        newSigningSecret: 'a'.repeat(64),
        signatureScheme: 'both',
        signingKeys: keys,
      });
      const old = version8Upsert(schema);
      await pool.query(old, [
        'cfg-x',
        'agency-a',
        'https://hooks.example.com/moved',
        'b'.repeat(64),
        BASE_TIME + 1,
      ]);
      await pool.query(old, [
        'cfg-b',
        'agency-b',
        'https://hooks.example.com/b',
        'b'.repeat(64),
        BASE_TIME + 1,
      ]);
      expect(await store.getConfig('agency-a')).toMatchObject({
        webhookUrl: 'https://hooks.example.com/moved',
        signatureScheme: 'both',
        signingKeys: keys,
      });
      expect(await store.getConfig('agency-b')).toMatchObject({
        signatureScheme: 'service',
        signingKeys: [],
      });
    } finally {
      await drop();
    }
  });

  it('runs while the release before reads configurations and emits in host transactions: nothing fails', async () => {
    const schema = newSchema();
    await createSchemaAtVersion(pool, schema, SCHEMES_VERSION - 1);
    await pool.query(version8Upsert(schema), [
      'cfg-a',
      'agency-a',
      'https://hooks.example.com/a',
      'a'.repeat(64),
      BASE_TIME,
    ]);
    const traffic = createTestPool({ max: 8 });
    const insert = deliveryStatements(parseSchemaName(schema)).insert;
    const errors: unknown[] = [];
    const done = { before: 0, after: 0 };
    let migrated = false;
    let stop = false;
    const count = () => {
      if (migrated) done.after += 1;
      else done.before += 1;
    };
    const loop = async (step: () => Promise<void>) => {
      while (!stop) await step().then(count, (error: unknown) => errors.push(error));
    };
    const read = async () => {
      const { rows } = await traffic.query({ ...version8Read(schema), values: [['agency-a']] });
      expect(rows).toHaveLength(1);
    };
    let jobs = 0;
    // An emit in a host transaction (the outbox): the insert, then the host's own work, then COMMIT.
    const emitInTransaction = () =>
      inHostTransaction(traffic, (client) => {
        jobs += 1;
        const record = makeDeliveryRecord({ agencyId: 'agency-a', eventId: `evt-${jobs}` });
        return run(client, insert, insertParams(record), true);
      });
    const upsert = async () => {
      await traffic.query({
        ...version8Upsert(schema),
        values: ['cfg-a', 'agency-a', 'https://hooks.example.com/a', 'a'.repeat(64), BASE_TIME + jobs],
      });
    };
    const loops = [read, read, read, emitInTransaction, emitInTransaction, upsert].map(loop);
    try {
      await new Promise((resolve) => setTimeout(resolve, 150));
      const result = await migrate({ pool, schema });
      migrated = true;
      await new Promise((resolve) => setTimeout(resolve, 150));
      stop = true;
      await Promise.all(loops);

      expect(errors).toEqual([]);
      expect(result.applied).toEqual(fromSchemesOn());
      expect(done.before, 'statements before the migration').toBeGreaterThan(20);
      expect(done.after, 'statements after it, on the same prepared statements').toBeGreaterThan(20);
      expect(await createPgStore({ pool, schema }).getConfig('agency-a')).toMatchObject({
        signatureScheme: 'service',
        signingKeys: [],
      });
    } finally {
      stop = true;
      await Promise.allSettled(loops);
      await traffic.end();
    }
  });
});

describePg('signature schemes on PostgreSQL: key writes', () => {
  const pool = createTestPool();
  afterAll(() => pool.end());

  it('a key write the database refuses throws without the private keys it carried', async () => {
    const { schema, drop } = await createTestSchema(pool);
    try {
      const store = createPgStore({ pool, schema });
      const input = {
        agencyId: 'agency-a',
        webhookUrl: 'https://hooks.example.com/a',
        enabled: true,
        subscribedEventTypes: [],
        now: BASE_TIME,
        newId: 'cfg-a',
        newSigningSecret: 'a'.repeat(64),
      };
      await store.upsertConfig(input);
      // A check a DBA might add: every new row version of the agency fails, quoting the row in `detail`.
      await pool.query(
        `ALTER TABLE "${schema}".webhook_configs ADD CONSTRAINT refuse_a CHECK (agency_id <> 'agency-a') NOT VALID`,
      );
      const privateKey = `whsk_${'Zm9vYmFy'.repeat(5)}private`;
      const key = { kid: 'whkey_1', privateKey, publicKey: 'whpk_x', createdAt: BASE_TIME, expiresAt: null };
      const failures = [
        await store.setSigningKeys('agency-a', [key], BASE_TIME + 1).catch((error: unknown) => error),
        await store
          .upsertConfig({ ...input, now: BASE_TIME + 2, signingKeys: [key] })
          .catch((error: unknown) => error),
      ];
      for (const failure of failures) {
        expect(failure).toMatchObject({ code: '23514', constraint: 'refuse_a' });
        expect(everythingIn(failure)).not.toContain(privateKey);
      }
    } finally {
      await drop();
    }
  });
});

describePg('signature schemes on PostgreSQL: through a real HTTPS receiver', () => {
  const pool = createTestPool();
  let harness: ServiceHarness | undefined;
  const drops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    for (const drop of drops.splice(0)) await drop();
  });
  afterAll(() => pool.end());

  it("'standard' and 'both' (with v1a) deliveries verify with the unmodified standardwebhooks package and node:crypto", async () => {
    const { schema, drop } = await createTestSchema(pool);
    drops.push(drop);
    const webhooks = createPgWebhooks({ pool, schema });
    drops.unshift(() => webhooks.close());
    const started = await startServiceHarness({ store: () => webhooks.store, queue: () => webhooks.queue });
    harness = started;
    await runStandardWebhooksScenario(started, webhooks.store);
  });
});
