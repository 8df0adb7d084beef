import type { ReceiverProcess } from '@svc/test-support';
import pg from 'pg';
import { freshSchema } from '../pg/bench-database';
import { configureAgencies, createBenchService } from '../pg/svc-setup';
import { type PhaseMeter, type Regime, runRegime } from './delivery-regime';
import { type PgCounters, readCounters, resetStatements } from './pg-statements';
import { ownCpuSeconds, serverCpuSeconds } from './process-cpu';

const SCHEMA = 'capacity_cost';

/** Counters at one point of a run on the private PostgreSQL. */
export interface PgSnapshot {
  counters: PgCounters;
  /** CPU seconds of the postmaster and every backend so far. */
  serverCpu: number;
  /** CPU seconds of this process (emits and the worker) so far. */
  processCpu: number;
}

/** One measured run: what `deliveries` deliveries cost the database. */
export interface PgCostRun {
  regime: Regime;
  deliveries: number;
  start: PgSnapshot;
  emitted: PgSnapshot | null;
  end: PgSnapshot;
  wallSeconds: number;
}

/**
 * Runs `agencies × perAgency` deliveries through the pg adapters (defaults) on
 * the private PostgreSQL at `url`, after an untimed warm-up on the same pool
 * (prepared statements, catalog caches), with pg_stat_statements reset just
 * before the measured run.
 */
export async function measurePgCost(
  url: string,
  serverPid: number,
  receiver: ReceiverProcess,
  regime: Regime,
  agencyCount: number,
  perAgency: number,
): Promise<PgCostRun> {
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  await freshSchema(pool, SCHEMA);
  const { webhooks, adapters } = createBenchService(pool, SCHEMA, receiver.ca);
  try {
    const agencies = await configureAgencies(webhooks, agencyCount, receiver.url);
    const received = async () => (await receiver.stats()).received;
    const meter: PhaseMeter<PgSnapshot> = {
      async snapshot() {
        const counters = await readCounters(pool);
        return { counters, serverCpu: serverCpuSeconds(serverPid), processCpu: ownCpuSeconds() };
      },
    };
    await runRegime({ webhooks, agencies, perAgency: 5, regime, received, meter: idleMeter });
    await resetStatements(pool);
    const run = await runRegime({ webhooks, agencies, perAgency, regime, received, meter });
    return { regime, deliveries: agencies.length * perAgency, ...run };
  } finally {
    await webhooks.close();
    await adapters.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await pool.end();
  }
}

/** The warm-up reads nothing. */
const idleMeter: PhaseMeter<null> = { snapshot: async () => null };
