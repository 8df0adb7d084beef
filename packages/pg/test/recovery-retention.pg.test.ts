import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgStore } from '../src/index';
import { parseSchemaName } from '../src/schema/schema-name';
import { recoveryStatements } from '../src/store/recovery-table';
import { createTestPool, createTestSchema, describePg } from './pg-test-database';
import { explainPrepared, planNodes } from './query-plan';

const FINISHED = 12_000;
const RUNNING = 300;
const LIMIT = 500;

describePg('PostgreSQL purgeRecoveries: bounded DELETEs on the finished-recovery index', () => {
  const pool = createTestPool({ max: 3 });
  let schema = '';
  let drop = async () => {};
  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(pool));
    // Finished rows, each finished at its own ms (completed and cancelled alternating),
    // and running rows (one per agency) created long before any of them finished.
    await pool.query(
      `INSERT INTO "${schema}".webhook_recoveries
         (id, agency_id, status, since, until, matched, replayed, cursor_type_index, created_at, completed_at, version)
       SELECT 'rcv-' || lpad(n::text, 6, '0'), 'agency-' || (n % 200),
              CASE WHEN n % 2 = 0 THEN 'completed' ELSE 'cancelled' END, 0, 1, 10, 10, 0, n, 1000000 + n, 2
         FROM generate_series(1, ${FINISHED}) AS n`,
    );
    await pool.query(
      `INSERT INTO "${schema}".webhook_recoveries
         (id, agency_id, status, since, until, matched, replayed, cursor_type_index, created_at, completed_at, version)
       SELECT 'rcv-run-' || lpad(n::text, 6, '0'), 'agency-run-' || n, 'running', 0, 1, 10, 0, 0, n, NULL, 1
         FROM generate_series(1, ${RUNNING}) AS n`,
    );
    await pool.query(`VACUUM (ANALYZE) "${schema}".webhook_recoveries`);
  }, 60_000);
  afterAll(async () => {
    await drop();
    await pool.end();
  });

  it('reads the finished-recovery index only, from the oldest finish, in both plans', async () => {
    const { purgeBatch } = recoveryStatements(parseSchemaName(schema));
    const cases = [
      // Steady state: nothing finished before the cutoff, what most rounds find.
      ['nothing to delete', [1_000_000, LIMIT], 0],
      ['a backlog larger than the batch', [1_000_000 + FINISHED, LIMIT], LIMIT],
    ] as const;
    const wrong: string[] = [];
    for (const [label, values, expected] of cases) {
      for (const plan of ['custom', 'generic'] as const) {
        const all = planNodes(await explainPrepared(pool, purgeBatch.text, values, plan));
        const scans = all.filter((node) => node['Node Type']?.includes('Index Scan'));
        const onFinished = scans.filter((node) => node['Index Name'] === 'webhook_recoveries_finished_idx');
        const filtered = all.reduce((sum, node) => sum + (node['Rows Removed by Filter'] ?? 0), 0);
        const sequential = all.some((node) => node['Node Type'] === 'Seq Scan');
        const read = onFinished.reduce((sum, node) => sum + (node['Actual Rows'] ?? 0), 0);
        if (onFinished.length === 0 || filtered > 0 || sequential || read !== expected) {
          const shape = all.map((node) => `${node['Node Type']} ${node['Index Name'] ?? ''}`.trim());
          wrong.push(`${label}, ${plan} plan (read ${read}): ${JSON.stringify(shape)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('works through a limit larger than one statement’s batch, oldest finished first, never a running row', async () => {
    const store = createPgStore({ pool, schema });
    const cutoff = 1_000_000 + 10_001;
    expect(await store.purgeRecoveries?.({ olderThan: cutoff, limit: 1_000_000 })).toBe(10_000);
    const { rows } = await pool.query(
      `SELECT status = 'running' AS running, count(*)::int AS n, min(completed_at)::int AS first
         FROM "${schema}".webhook_recoveries GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toEqual([
      { running: false, n: FINISHED - 10_000, first: cutoff },
      { running: true, n: RUNNING, first: null },
    ]);
  });
});
