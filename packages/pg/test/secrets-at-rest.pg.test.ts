import { describeSecretsAtRest } from '@svc/test-support/secrets-at-rest';
import type pg from 'pg';
import { afterAll } from 'vitest';
import { createPgWebhooks } from '../src/index';
import { createTestPool, createTestSchema, describePg } from './pg-test-database';

/** Every row of every table in the schema, each cast to text (what a dump of the schema would hold). */
async function dumpSchema(pool: pg.Pool, schema: string): Promise<string> {
  const tables = await pool.query<{ table_name: string }>(
    'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
    [schema],
  );
  const dumped: string[] = [];
  for (const { table_name: table } of tables.rows) {
    const rows = await pool.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${table}" t`);
    dumped.push(`-- ${table}`, ...rows.rows.map((row) => row.row));
  }
  return dumped.join('\n');
}

describePg('PostgreSQL', () => {
  const pool = createTestPool();
  afterAll(() => pool.end());

  describeSecretsAtRest('PostgreSQL', async () => {
    const { schema, drop } = await createTestSchema(pool);
    const webhooks = createPgWebhooks({ pool, schema });
    let constraints = 0;
    return {
      store: webhooks.store,
      queue: webhooks.queue,
      dump: () => dumpSchema(pool, schema),
      // A check a DBA might add: NOT VALID, so existing rows stand and every new row version is checked.
      async breakConfigWrites(agencyId) {
        constraints += 1;
        await pool.query(
          `ALTER TABLE "${schema}".webhook_configs ADD CONSTRAINT refuse_${constraints}
           CHECK (agency_id <> '${agencyId.replace(/'/g, "''")}') NOT VALID`,
        );
      },
      async teardown() {
        await webhooks.close();
        await drop();
      },
    };
  });
});
