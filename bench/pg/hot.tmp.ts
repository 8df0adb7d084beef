import { migrate } from '@svc/webhooks-pg';
import pg from 'pg';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/test', max: 4 });
const now = 1_700_000_000_000;
async function setup(schema: string, hot: boolean) {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await migrate(pool, { schema });
  if (hot) {
    await pool.query(`DROP INDEX ${schema}.webhook_deliveries_claimable_idx`);
    await pool.query(`CREATE INDEX ON ${schema}.webhook_deliveries (run_at) WHERE run_at IS NOT NULL`);
    await pool.query(`ALTER TABLE ${schema}.webhook_deliveries SET (fillfactor = 80)`);
  }
  await pool.query(`INSERT INTO ${schema}.webhook_deliveries (id, agency_id, event_id, event_type, entity_type, payload, created_on, created_at, status, attempt, max_attempts, next_retry_at, run_at)
   SELECT 'd-' || lpad(n::text, 7, '0'), 'agency-' || (n % 100), 'evt-' || n, 'job_created', 'job', '{"jobId":"job-1","agencyId":"agency-1","jobNumber":12,"reason":"Tenant cancelled the visit"}', $1, $1, 'pending', 0, 5, $1, $1 FROM generate_series(1, 20000) n`, [now]);
  await pool.query(`VACUUM ANALYZE ${schema}.webhook_deliveries`);
}
function wal(plan: string) { const m = plan.match(/WAL: records=(\d+)(?: fpi=(\d+))? bytes=(\d+)/); return m ? `${m[1]} rec ${m[3]} B` : 'n/a'; }
async function explain(sql: string, params: unknown[]) {
  const { rows } = await pool.query(`EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT TEXT) ${sql}`, params);
  const text = rows.map((r: any) => r['QUERY PLAN']).join('\n');
  const exec = text.match(/Execution Time: ([\d.]+)/)?.[1];
  return `${wal(text)} exec ${exec} ms`;
}
for (const [schema, hot] of [['hot_a', false], ['hot_b', true]] as const) {
  await setup(schema, hot);
  const t = `${schema}.webhook_deliveries`;
  const claimA = `WITH due AS (SELECT id FROM ${t} WHERE run_at IS NOT NULL AND COALESCE(lease_until, run_at) <= $1 ORDER BY COALESCE(lease_until, run_at) LIMIT 8 FOR UPDATE SKIP LOCKED) UPDATE ${t} d SET claim_id = gen_random_uuid()::text, lease_until = $1 + 30000 FROM due WHERE d.id = due.id RETURNING d.id`;
  const claimB = `WITH due AS (SELECT id FROM ${t} WHERE run_at <= $1 AND (lease_until IS NULL OR lease_until <= $1) ORDER BY run_at LIMIT 8 FOR UPDATE SKIP LOCKED) UPDATE ${t} d SET claim_id = gen_random_uuid()::text, lease_until = $1 + 30000 FROM due WHERE d.id = due.id RETURNING d.id`;
  const claim = hot ? claimB : claimA;
  const res: string[] = [];
  // warm: claim 200 rows so leased rows are at the head
  for (let i = 0; i < 25; i++) await pool.query(claim, [now]);
  res.push('claim8 ' + await explain(claim, [now]));
  const { rows } = await pool.query(claim, [now]);
  const id = rows[0].id;
  res.push('cas ' + await explain(`UPDATE ${t} SET status='success', attempt=1, last_attempt_at=$2, delivered_at=$2, last_response_code=200, last_response_excerpt='ok', run_at=NULL, claim_id=NULL, lease_until=NULL WHERE id=$1 AND attempt=0 AND status='pending'`, [id, now]));
  const st = await pool.query(`SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE schemaname=$1`, [schema]);
  console.log(schema, hot ? 'HOT-variant' : 'current', res.join(' | '), JSON.stringify(st.rows[0]));
}
await pool.end();
