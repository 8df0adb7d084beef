import type pg from 'pg';

/** One row of pg_stat_statements, as the benchmark reads it. */
export interface StatementStats {
  query: string;
  /** False for statements run inside a function or trigger (counted within their caller's time too). */
  toplevel: boolean;
  calls: number;
  /** Milliseconds spent executing, summed over the calls. */
  execMs: number;
  rows: number;
}

/** Cluster-wide counters read beside pg_stat_statements. */
export interface PgCounters {
  statements: StatementStats[];
  /** Committed and rolled back transactions of the benchmark's database. */
  transactions: number;
  walBytes: number;
  walRecords: number;
}

/**
 * The cumulative statistics (transactions, WAL) are flushed by each backend
 * when it goes idle, at most once a second; waiting this long before a reading
 * lets the last ones in.
 */
const STATS_FLUSH_WAIT_MS = 1_200;

/** Forgets every statement counted so far. */
export async function resetStatements(pool: pg.Pool): Promise<void> {
  await pool.query('SELECT pg_stat_statements_reset()');
}

/**
 * Reads the counters, leaving out the benchmark's own readings of them. The
 * transaction and WAL figures are totals since the cluster started, so callers
 * subtract two readings; the statements are those since the last reset.
 */
export async function readCounters(pool: pg.Pool): Promise<PgCounters> {
  await new Promise((resolve) => setTimeout(resolve, STATS_FLUSH_WAIT_MS));
  const statements = await pool.query<{
    query: string;
    toplevel: boolean;
    calls: string;
    total_exec_time: number;
    rows: string;
  }>(
    `SELECT query, toplevel, calls, total_exec_time, rows FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT LIKE '%pg_stat_%'`,
  );
  const database = await pool.query<{ transactions: string }>(
    `SELECT xact_commit + xact_rollback AS transactions FROM pg_stat_database WHERE datname = current_database()`,
  );
  const wal = await pool.query<{ wal_bytes: string; wal_records: string }>(
    'SELECT wal_bytes, wal_records FROM pg_stat_wal',
  );
  return {
    statements: statements.rows.map((row) => ({
      query: row.query,
      toplevel: row.toplevel,
      calls: Number(row.calls),
      execMs: row.total_exec_time,
      rows: Number(row.rows),
    })),
    transactions: Number(database.rows[0]?.transactions ?? 0),
    walBytes: Number(wal.rows[0]?.wal_bytes ?? 0),
    walRecords: Number(wal.rows[0]?.wal_records ?? 0),
  };
}
