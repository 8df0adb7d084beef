import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseSchemaName } from '../src/schema/schema-name';
import { recoveryStatements } from '../src/store/recovery-table';
import { createTestPool, createTestSchema, describePg } from './pg-test-database';
import { explainPrepared, planNodes } from './query-plan';

const AGENCIES = 200;
const PER_AGENCY = 25;
const LIMIT = 5;

describePg('PostgreSQL listRecoveries: the plan of a page', () => {
  const pool = createTestPool({ max: 2 });
  let schema = '';
  let drop = async () => {};
  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(pool));
    // Agencies interleaved, as recoveries are started; finished rows stay, so most are.
    await pool.query(
      `INSERT INTO "${schema}".webhook_recoveries
         (id, agency_id, status, since, until, matched, replayed, cursor_type_index, created_at, completed_at, version)
       SELECT 'rcv-' || lpad(n::text, 6, '0'), 'agency-' || (n % ${AGENCIES}), 'completed', 0, 1, 10, 10, 0, n, n, 2
         FROM generate_series(0, ${AGENCIES * PER_AGENCY - 1}) AS n`,
    );
    await pool.query(`VACUUM (ANALYZE) "${schema}".webhook_recoveries`);
  }, 60_000);
  afterAll(async () => {
    await drop();
    await pool.end();
  });

  it('first and later pages scan the agency list index only, never other agencies’ rows', async () => {
    const statements = recoveryStatements(parseSchemaName(schema));
    // agency-7 holds rcv-000007, rcv-000207, …; this cursor leaves 12 of its recoveries before it.
    const pages = [
      ['first page', statements.listFirstPage.text, ['agency-7', LIMIT]],
      ['page before a cursor', statements.listPageBefore.text, ['agency-7', LIMIT, 'rcv-002407']],
    ] as const;
    const wrong: string[] = [];
    for (const [page, text, values] of pages) {
      for (const plan of ['custom', 'generic'] as const) {
        const all = planNodes(await explainPrepared(pool, text, [...values], plan));
        const scans = all.filter((node) => node['Node Type']?.includes('Index Scan'));
        const onOtherIndexes = scans.filter(
          (node) => node['Index Name'] !== 'webhook_recoveries_agency_list_idx',
        );
        const filtered = all.reduce((sum, node) => sum + (node['Rows Removed by Filter'] ?? 0), 0);
        const sequential = all.some((node) => node['Node Type'] === 'Seq Scan');
        if (scans.length === 0 || onOtherIndexes.length > 0 || filtered > 0 || sequential) {
          wrong.push(`${page}, ${plan} plan: ${JSON.stringify(all.map((node) => node['Node Type']))}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
