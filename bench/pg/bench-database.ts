import pg from 'pg';
import { migrate } from '../../packages/pg/src/index';

/** The database the benchmarks use (the tests' default). */
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A pool for one benchmark part. */
export function createBenchPool(max = 20): pg.Pool {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max });
  pool.on('error', (error) => console.warn(`idle PostgreSQL connection lost: ${error.message}`));
  return pool;
}

/** Drops and re-creates a migrated schema, so every run starts from empty tables. */
export async function freshSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await migrate({ pool, schema });
}
