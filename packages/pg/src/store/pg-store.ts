import {
  type AttemptRecord,
  type CircuitRecord,
  type CircuitState,
  type CountDeliveriesFilter,
  type DeliveryExpectation,
  type DeliveryRecord,
  type DeliveryUpdate,
  type DisableConfigInput,
  type ListConfigsOptions,
  type ListDeliveriesOptions,
  type PurgeDeliveriesOptions,
  type PurgeRecoveriesOptions,
  type RecoveryListOptions,
  type RecoveryPageOptions,
  type RecoveryPageReplay,
  type RecoveryRecord,
  type RecoveryUpdate,
  type SetSigningSecretOptions,
  type SigningKeyRecord,
  type TransactionOptions,
  type UpsertConfigInput,
  type WebhookConfigRecord,
  WebhookError,
  type WebhookStore,
} from '@svc/webhooks-core';
import { CallBatcher } from '@svc/webhooks-core/adapter-kit';
import type { Pool } from 'pg';
import {
  type CompareAndSetInput,
  compareAndSetParams,
  type DeliveryRow,
  initialRunAt,
  insertParams,
  toDeliveryRecord,
} from '../delivery-row';
import { type Queryable, requirePool, transactionTarget } from '../queryable';
import { parseSchemaName } from '../schema/schema-name';
import { schemaContext } from '../schema-context';
import { run, type Statement } from '../statement';
import { type AttemptRow, attemptStatements, toAttemptRecord } from './attempt-table';
import { type CircuitRow, circuitParams, circuitStatements, toCircuitRecord } from './circuit-table';
import { type ConfigRow, configStatements, signingKeysParam, toConfigRecord } from './config-table';
import { deliveryStatements } from './delivery-statements';
import { countStatements, listStatements } from './list-statements';
import { type RecoveryPageRow, recoveryPageStatements, toRecoveryPageReplay } from './recovery-page';
import {
  type RecoveryRow,
  recoveryParams,
  recoveryStatements,
  recoveryUpdateParams,
  toRecoveryRecord,
} from './recovery-table';
import { writingSecret } from './secret-errors';

/** Options of {@link createPgStore}. */
export interface PgStoreOptions {
  /**
   * The host's node-postgres pool. The store runs its statements on it and
   * never ends it.
   * @example createPgStore({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) })
   */
  pool: Pool;
  /**
   * Schema holding the tables, as passed to `migrate()`.
   * @default 'webhooks'
   */
  schema?: string;
  /**
   * Send hot statements as named prepared statements (parsed and planned once
   * per connection). Left out, the adapter decides on its first call: named on a
   * direct connection, unnamed when the pool goes through a pooler (PgBouncer,
   * a managed pooler), which cannot keep them across transactions. Pass `true`
   * for a pooler that keeps them (PgBouncer 1.21+ with `max_prepared_statements`).
   * @default named on a direct connection, unnamed through a pooler
   */
  preparedStatements?: boolean;
}

/**
 * Largest batch one purge statement deletes: keeps each DELETE's transaction and
 * WAL burst short however large a `limit` the caller asks for.
 */
const PURGE_BATCH = 5_000;

/** What a purge without a status deletes, one status after the other. */
const FINISHED_STATUSES = ['success', 'failed'] as const;

/** Most calls one coalesced statement serves (config reads, compare-and-sets). */
const BATCH_LIMIT = 100;

/**
 * Creates the PostgreSQL {@link WebhookStore}. It takes the host's `pg.Pool` and
 * never ends it. Run {@link migrate} first; the first call on an unmigrated
 * schema rejects with `SchemaNotMigratedError`.
 *
 * A pending delivery it inserts is immediately due for the PostgreSQL queue of
 * the same schema (the table is the queue), so `emit` costs one statement.
 *
 * @example
 * ```ts
 * const store = createPgStore({ pool, schema: 'webhooks' });
 * ```
 * @throws InvalidOptionError (`invalid_option`) when `pool` is missing or `schema` is not a plain identifier
 */
export function createPgStore(options: PgStoreOptions): WebhookStore {
  const pool = requirePool(options, 'createPgStore');
  const schema = parseSchemaName(options.schema);
  const context = schemaContext(pool, schema);
  const preparedOption = options.preparedStatements;
  const deliveries = deliveryStatements(schema);
  const configs = configStatements(schema);
  const circuits = circuitStatements(schema);
  const recoveries = recoveryStatements(schema);
  const pickListStatement = listStatements(schema);
  const pickCountStatement = countStatements(schema);
  const attempts = attemptStatements(schema);
  const pickRecoveryPage = recoveryPageStatements(schema);

  const query = async <Row extends object>(stmt: Statement, values: unknown[]): Promise<Row[]> => {
    await context.ensureMigrated();
    return run<Row & Record<string, unknown>>(pool, stmt, values, context.prepared(preparedOption));
  };
  const oneConfig = (rows: ConfigRow[]) => (rows[0] ? toConfigRecord(rows[0]) : null);
  const oneDelivery = (rows: DeliveryRow[]) => (rows[0] ? toDeliveryRecord(rows[0]) : null);

  // Every attempt reads its agency's configuration and records its outcome:
  // both are coalesced across concurrent callers (see CallBatcher).
  const configReads = new CallBatcher<string, ConfigRow | undefined>(
    async (agencyIds) => {
      const rows = await query<ConfigRow>(configs.getMany, [[...new Set(agencyIds)]]);
      const byAgency = new Map(rows.map((row) => [row.agency_id, row]));
      return agencyIds.map((agencyId) => byAgency.get(agencyId));
    },
    { maxBatch: BATCH_LIMIT },
  );
  // The worker may read an agency's breaker before each attempt: coalesced too.
  const circuitReads = new CallBatcher<string, CircuitRow | undefined>(
    async (agencyIds) => {
      const rows = await query<CircuitRow>(circuits.getMany, [[...new Set(agencyIds)]]);
      const byAgency = new Map(rows.map((row) => [row.agency_id, row]));
      return agencyIds.map((agencyId) => byAgency.get(agencyId));
    },
    { maxBatch: BATCH_LIMIT },
  );
  const compareAndSets = new CallBatcher<
    CompareAndSetInput,
    (DeliveryRow & { settled: boolean }) | undefined
  >(
    async (inputs) => {
      const rows = await query<DeliveryRow & { settled: boolean }>(
        deliveries.compareAndSetMany,
        compareAndSetParams(inputs),
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      return inputs.map((input) => byId.get(input.deliveryId));
    },
    { maxBatch: BATCH_LIMIT, keyOf: (input) => input.deliveryId },
  );

  return {
    capabilities: { transactions: true, purge: true },

    async getConfig(agencyId: string): Promise<WebhookConfigRecord | null> {
      const row = await configReads.call(agencyId);
      return row ? toConfigRecord(row) : null;
    },

    async upsertConfig(input: UpsertConfigInput) {
      const secrets = [input.newSigningSecret, ...privateKeys(input.signingKeys)];
      const rows = await writingSecret(secrets, () =>
        query<ConfigRow & { created: boolean }>(configs.upsert, [
          input.newId,
          input.agencyId,
          input.webhookUrl,
          input.newSigningSecret,
          input.enabled,
          input.subscribedEventTypes,
          input.now,
          input.signatureScheme ?? null,
          signingKeysParam(input.signingKeys),
        ]),
      );
      const row = rows[0]!;
      return { config: toConfigRecord(row), created: row.created };
    },

    async setSigningSecret(
      agencyId: string,
      signingSecret: string,
      now: number,
      secretOptions?: SetSigningSecretOptions,
    ) {
      const expected = secretOptions?.expectedSigningSecret;
      const rows = await writingSecret([signingSecret, expected ?? ''], () =>
        expected === undefined
          ? query<ConfigRow>(configs.setSecret, [agencyId, signingSecret, now])
          : query<ConfigRow>(configs.setSecretIf, [agencyId, signingSecret, now, expected]),
      );
      return oneConfig(rows);
    },

    async setSigningKeys(
      agencyId: string,
      signingKeys: SigningKeyRecord[],
      now: number,
    ): Promise<WebhookConfigRecord | null> {
      const rows = await writingSecret(privateKeys(signingKeys), () =>
        query<ConfigRow>(configs.setSigningKeys, [agencyId, signingKeysParam(signingKeys), now]),
      );
      return oneConfig(rows);
    },

    async listConfigs({ after, limit }: ListConfigsOptions): Promise<WebhookConfigRecord[]> {
      const rows =
        after === null
          ? await query<ConfigRow>(configs.listFirst, [limit])
          : await query<ConfigRow>(configs.listAfter, [after, limit]);
      return rows.map(toConfigRecord);
    },

    async disableConfig(agencyId: string, input: DisableConfigInput): Promise<WebhookConfigRecord | null> {
      return oneConfig(
        await query<ConfigRow>(configs.disable, [agencyId, input.reason, input.now, input.expectedUpdatedAt]),
      );
    },

    async deleteConfig(agencyId: string): Promise<boolean> {
      await context.ensureMigrated();
      const result = await pool.query({ text: configs.remove.text, values: [agencyId] });
      return (result.rowCount ?? 0) > 0;
    },

    async getCircuit(agencyId: string): Promise<CircuitRecord | null> {
      const row = await circuitReads.call(agencyId);
      return row ? toCircuitRecord(row) : null;
    },

    async createRecovery(record: RecoveryRecord): Promise<{ recovery: RecoveryRecord; created: boolean }> {
      for (;;) {
        const inserted = await query<RecoveryRow>(recoveries.create, recoveryParams(record));
        if (inserted[0]) return { recovery: toRecoveryRecord(inserted[0]), created: true };
        const [running] = await query<RecoveryRow>(recoveries.running, [record.agencyId]);
        // The running one finished between the two statements: the agency is free again.
        if (running) return { recovery: toRecoveryRecord(running), created: false };
      }
    },

    async getRecovery(recoveryId: string): Promise<RecoveryRecord | null> {
      const [row] = await query<RecoveryRow>(recoveries.get, [recoveryId]);
      return row ? toRecoveryRecord(row) : null;
    },

    async updateRecovery(
      recoveryId: string,
      expectedVersion: number,
      update: RecoveryUpdate,
    ): Promise<RecoveryRecord | null> {
      const [row] = await query<RecoveryRow>(
        recoveries.update,
        recoveryUpdateParams(recoveryId, expectedVersion, update),
      );
      return row ? toRecoveryRecord(row) : null;
    },

    async replayRecoveryPage(
      recovery: RecoveryRecord,
      page: RecoveryPageOptions,
    ): Promise<RecoveryPageReplay | null> {
      const [stmt, values] = pickRecoveryPage(recovery, page);
      const [row] = await query<RecoveryPageRow>(stmt, values);
      return toRecoveryPageReplay(recovery, row);
    },

    async listRunningRecoveries(limit: number): Promise<RecoveryRecord[]> {
      return (await query<RecoveryRow>(recoveries.listRunning, [limit])).map(toRecoveryRecord);
    },

    async listRecoveries(
      agencyId: string,
      { limit, beforeId }: RecoveryListOptions,
    ): Promise<RecoveryRecord[]> {
      const rows =
        beforeId === undefined
          ? await query<RecoveryRow>(recoveries.listFirstPage, [agencyId, limit])
          : await query<RecoveryRow>(recoveries.listPageBefore, [agencyId, limit, beforeId]);
      return rows.map(toRecoveryRecord);
    },

    async saveCircuit(
      agencyId: string,
      expectedVersion: number | null,
      state: CircuitState,
    ): Promise<CircuitRecord | null> {
      const params = circuitParams(agencyId, state);
      const rows =
        expectedVersion === null
          ? await query<CircuitRow>(circuits.create, params)
          : await query<CircuitRow>(circuits.update, [...params, expectedVersion]);
      return rows[0] ? toCircuitRecord(rows[0]) : null;
    },

    async insertDelivery(record: DeliveryRecord, insertOptions?: TransactionOptions) {
      const target = transactionTarget(pool, insertOptions);
      await context.ensureMigrated();
      const rows = await run<DeliveryRow & { created: boolean }>(
        target,
        deliveries.insert,
        insertParams(record),
        context.prepared(preparedOption),
      );
      // Rare: the duplicate was committed by a concurrent transaction after this
      // statement's snapshot was taken, so neither branch saw a row. Read it now.
      const row = rows[0] ?? (await readByEvent(target, record))[0];
      if (!row) throw vanishedWhileInserting(record);
      const created = rows[0]?.created ?? false;
      const runAt = initialRunAt(record);
      if (created && runAt !== null) context.fresh.remember(record.id, runAt, insertOptions?.transaction);
      return { delivery: toDeliveryRecord(row), created };
    },

    async getDelivery(deliveryId: string): Promise<DeliveryRecord | null> {
      const snapshot = context.claims.takeSnapshot(deliveryId);
      if (snapshot) return snapshot;
      return oneDelivery(await query<DeliveryRow>(deliveries.get, [deliveryId]));
    },

    async listDeliveries(agencyId: string, listOptions: ListDeliveriesOptions): Promise<DeliveryRecord[]> {
      const [stmt, values] = pickListStatement(agencyId, listOptions);
      return (await query<DeliveryRow>(stmt, values)).map(toDeliveryRecord);
    },

    async countDeliveries(agencyId: string, filter: CountDeliveriesFilter): Promise<number> {
      const [stmt, values] = pickCountStatement(agencyId, filter);
      await context.ensureMigrated();
      // Never prepared, so always planned for its values: a generic plan may take the status
      // index and check the type on every row it points to, reading a whole window's rows.
      // Counts come from recoveries: at the request (one per event type named, dry runs included),
      // then from the walk before each page and while it waits for its agency (at most every
      // 20 ms). Planning each one took about 0.1 ms in a probe, a tenth of the count itself.
      const [row] = await run<{ matched: string }>(pool, stmt, values, false);
      // count(*) is a bigint, which node-postgres hands over as a string.
      return Number(row?.matched ?? 0);
    },

    async updateDelivery(deliveryId: string, expected: DeliveryExpectation, update: DeliveryUpdate) {
      context.claims.wrote(deliveryId);
      const claimId = context.claims.heldClaim(deliveryId) ?? null;
      // Where the worker's next call (ack or reschedule) would put the entry.
      const settleRunAt = update.status === 'pending' ? update.nextRetryAt : null;
      const row = await compareAndSets.call({ deliveryId, expected, update, claimId, settleRunAt });
      if (row?.settled && claimId !== null) context.claims.settled(deliveryId, claimId, settleRunAt);
      return row ? toDeliveryRecord(row) : null;
    },

    async listAttempts(deliveryId: string): Promise<AttemptRecord[]> {
      return (await query<AttemptRow>(attempts.list, [deliveryId])).map(toAttemptRecord);
    },

    async listDuePending(dueBefore: number, limit: number): Promise<DeliveryRecord[]> {
      return (await query<DeliveryRow>(deliveries.listDuePending, [dueBefore, limit])).map(toDeliveryRecord);
    },

    async purgeDeliveries({ olderThan, limit, status }: PurgeDeliveriesOptions): Promise<number> {
      await context.ensureMigrated();
      let deleted = 0;
      for (const each of status ? [status] : FINISHED_STATUSES) {
        while (deleted < limit) {
          const batch = Math.min(PURGE_BATCH, limit - deleted);
          const result = await pool.query({
            text: deliveries.purgeBatch[each].text,
            values: [olderThan, batch],
          });
          const count = result.rowCount ?? 0;
          deleted += count;
          if (count < batch) break;
        }
      }
      return deleted;
    },

    async purgeRecoveries({ olderThan, limit }: PurgeRecoveriesOptions): Promise<number> {
      await context.ensureMigrated();
      let deleted = 0;
      while (deleted < limit) {
        const batch = Math.min(PURGE_BATCH, limit - deleted);
        const result = await pool.query({ text: recoveries.purgeBatch.text, values: [olderThan, batch] });
        const count = result.rowCount ?? 0;
        deleted += count;
        if (count < batch) break;
      }
      return deleted;
    },

    async close(): Promise<void> {
      // The pool is the host's: nothing of our own to release.
    },
  };

  function readByEvent(target: Queryable, record: DeliveryRecord): Promise<DeliveryRow[]> {
    return run<DeliveryRow>(
      target,
      deliveries.selectByEvent,
      [record.agencyId, record.eventId],
      context.prepared(preparedOption),
    );
  }
}

/** The private keys a key write carries, for redaction from what it throws. */
function privateKeys(keys: readonly SigningKeyRecord[] | undefined): string[] {
  return keys?.map((key) => key.privateKey) ?? [];
}

/**
 * The insert met a delivery for the same event (so it wrote nothing) that the
 * read which followed could not see: deleted in between (a purge, by hand), or
 * committed after the snapshot of a REPEATABLE READ or SERIALIZABLE host
 * transaction. Either way a retry settles it.
 */
function vanishedWhileInserting(record: DeliveryRecord): WebhookError {
  return new WebhookError(
    'store_error',
    `@svc/webhooks-pg: a delivery for event "${record.eventId}" of agency "${record.agencyId}" was stored by ` +
      'another transaction but cannot be read from this one (deleted meanwhile, or committed after this ' +
      "transaction's snapshot); nothing was written. Emit the event again, in a new transaction if you used one.",
    { details: { agencyId: record.agencyId, eventId: record.eventId } },
  );
}
