import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import type pg from 'pg';
import { DELIVERY_COLUMNS, insertParams } from '../src/delivery-row';
import { migrationChecksum, renderMigration } from '../src/schema/migration';
import { MIGRATIONS } from '../src/schema/migration-list';

/** The version that added `webhook_deliveries.next_attempt_trigger` (attempt history). */
const TRIGGER_COLUMN_VERSION = 4;

/** A schema as the release at `version` left it: migrations 1 to `version` applied and recorded, nothing after. */
export async function createSchemaAtVersion(pool: pg.Pool, schema: string, version: number): Promise<void> {
  await pool.query(`CREATE SCHEMA "${schema}"`);
  await pool.query(
    `CREATE TABLE "${schema}".schema_migrations (
       version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  for (const migration of MIGRATIONS.filter((step) => step.version <= version)) {
    await pool.query(renderMigration(migration, `"${schema}"`));
    await pool.query(
      `INSERT INTO "${schema}".schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`,
      [migration.version, migration.name, migrationChecksum(migration)],
    );
  }
}

/** A named statement: node-postgres prepares it once per connection, as every release's adapter does. */
interface Named {
  /** Left out: sent unnamed, parsed and planned on every call. */
  name?: string;
  text: string;
}

/**
 * The statements a release at `version` sends on the deliveries table, named
 * (prepared) like its adapter's: the emit insert, a claim, an ack and the list.
 */
export function oldReleaseStatements(schema: string, version: number) {
  const table = `"${schema}".webhook_deliveries`;
  const columns =
    version < TRIGGER_COLUMN_VERSION
      ? DELIVERY_COLUMNS.replace(', next_attempt_trigger', '')
      : DELIVERY_COLUMNS;
  const count = columns.split(',').length + 1;
  const values = Array.from({ length: count }, (_, index) => (index === 9 ? '$10::json' : `$${index + 1}`));
  const named = (kind: string, text: string): Named => ({ name: `v${version}_${kind}_${schema}`, text });
  return {
    insert: named(
      'insert',
      `WITH inserted AS (
         INSERT INTO ${table} (${columns}, run_at) VALUES (${values.join(', ')})
         ON CONFLICT (agency_id, event_id) DO NOTHING RETURNING id)
       SELECT id FROM inserted UNION ALL
       SELECT id FROM ${table} WHERE agency_id = $2 AND event_id = $3 AND NOT EXISTS (SELECT 1 FROM inserted)`,
    ),
    claim: named(
      'claim',
      `UPDATE ${table} SET claim_id = 'old-' || id, lease_until = $1 + 30000
        WHERE id IN (SELECT id FROM ${table} WHERE run_at <= $1 AND (claim_id IS NULL OR lease_until < $1)
                      ORDER BY run_at LIMIT 8 FOR UPDATE SKIP LOCKED)
       RETURNING id, claim_id`,
    ),
    ack: named(
      'ack',
      `UPDATE ${table} SET run_at = NULL, claim_id = NULL, lease_until = NULL, status = 'success', attempt = 1
        WHERE id = $1 AND claim_id = $2`,
    ),
    list: named('list', `SELECT id FROM ${table} WHERE agency_id = $1 ORDER BY id DESC LIMIT 20`),
    /** The insert's values for a new pending delivery of `agencyId`. */
    insertValues(agencyId: string, eventId: string): unknown[] {
      const params = insertParams(makeDeliveryRecord({ agencyId, eventId }));
      if (version < TRIGGER_COLUMN_VERSION) params.splice(21, 1);
      return params;
    },
  };
}

/** Runs `work` as a host's outbox transaction on one client: BEGIN, `work`, the host's own work (5 ms), COMMIT. */
export async function inHostTransaction(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<unknown>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('SELECT pg_sleep(0.005)');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Statements of the old release that ran, and those that failed, while its traffic ran. */
export interface TrafficResult {
  done: number;
  errors: unknown[];
}

/**
 * Runs the traffic of the release at `version` on `pool` until `stop()`: two
 * loops of emits (autocommit), one of emits in host transactions (insert, the
 * host's own work, COMMIT), one worker claiming and acking, one reading the list.
 * Named (prepared) statements unless `named: false`.
 */
export function startOldReleaseTraffic(
  pool: pg.Pool,
  schema: string,
  version: number,
  options: { named?: boolean } = {},
) {
  const named = oldReleaseStatements(schema, version);
  // Through a transaction pooler an earlier release had to run with preparedStatements: false.
  const unnamed = (statement: Named): Named =>
    options.named === false ? { text: statement.text } : statement;
  const sql = {
    ...named,
    insert: unnamed(named.insert),
    claim: unnamed(named.claim),
    ack: unnamed(named.ack),
    list: unnamed(named.list),
  };
  const result: TrafficResult = { done: 0, errors: [] };
  let stopped = false;
  let events = 0;
  const emit = async (target: pg.Pool | pg.PoolClient) => {
    events += 1;
    await target.query({ ...sql.insert, values: sql.insertValues(`agency-${events % 4}`, `evt-${events}`) });
  };
  const emitInTransaction = () => inHostTransaction(pool, emit);
  const deliver = async () => {
    const { rows } = await pool.query({ ...sql.claim, values: [Date.now()] });
    for (const row of rows) await pool.query({ ...sql.ack, values: [row.id, row.claim_id] });
  };
  const list = async () => {
    await pool.query({ ...sql.list, values: ['agency-1'] });
  };
  const loop = async (step: () => Promise<void>) => {
    while (!stopped) {
      await step().then(
        () => {
          result.done += 1;
        },
        (error: unknown) => {
          result.errors.push(error);
        },
      );
    }
  };
  const loops = [() => emit(pool), () => emit(pool), emitInTransaction, deliver, list].map(loop);
  return {
    /** Ends every loop after its statement in flight; resolves with what ran and what failed. */
    async stop(): Promise<TrafficResult> {
      stopped = true;
      await Promise.all(loops);
      return result;
    },
  };
}
