import {
  type Claim,
  type ClaimOptions,
  type DeliveryQueue,
  InvalidOptionError,
  type QueueEntry,
  type TransactionOptions,
  WebhookError,
} from '@svc/webhooks-core';
import { sleep } from '@svc/webhooks-core/adapter-kit';
import type { Pool } from 'pg';
import { isPooled } from '../connection-kind';
import { type DeliveryRow, toDeliveryRecord } from '../delivery-row';
import { requirePool, transactionTarget } from '../queryable';
import { parseSchemaName } from '../schema/schema-name';
import { schemaContext } from '../schema-context';
import { queryConfig, run, type Statement } from '../statement';
import { claimStatement } from './claim-statements';
import type { ListenSilentError } from './listen-silent-error';
import { queueStatements, wakeupChannel } from './queue-statements';
import { FALLBACK_POLL_MS, type ListenTarget, WakeupListener } from './wakeup-listener';

/** Options of {@link createPgQueue}. */
export interface PgQueueOptions {
  /**
   * The host's node-postgres pool: the queue runs its statements on it and,
   * with `notify`, holds one of its connections in LISTEN. Never ended by the queue.
   * @example createPgQueue({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) })
   */
  pool: Pool;
  /**
   * Schema holding the tables, as passed to `migrate()`; the same as the store's.
   * @default 'webhooks'
   */
  schema?: string;
  /**
   * Wake idle workers with LISTEN/NOTIFY, so a new delivery starts within
   * milliseconds without polling. Holds one connection (of the pool, or the
   * `listen` one) while the queue is in use. When LISTEN hears nothing (the
   * pool goes through a transaction pooler and no `listen` was given, or the
   * queue's own test notification does not arrive), the queue reports it once
   * (`listen_silent`, to the service's `hooks.onError` and logger, and to
   * `onError`) and idle waits poll every 50 ms. With `false`, workers find work
   * at their own `pollIntervalMs`.
   * @default true
   */
  notify?: boolean;
  /**
   * Where to LISTEN, when the pool cannot (it goes through PgBouncer or another
   * transaction pooler): a connection string or node-postgres client config
   * reaching the same database directly (or through a session-mode pooler), on
   * which the queue opens its one LISTEN connection and reopens it after a drop;
   * or a connected `pg.Client` of the host's, never ended by the queue (once it
   * ends, waits poll). Every other statement still goes through `pool`.
   * @example createPgWebhooks({ pool: pooledPool, listen: process.env.DIRECT_DATABASE_URL })
   * @default the pool's own connections
   */
  listen?: ListenTarget;
  /**
   * Send hot statements as named prepared statements (parsed and planned once
   * per connection). Left out, the queue decides on its first call: named on a
   * direct connection, unnamed when the pool goes through a pooler. Pass `true`
   * for a pooler that keeps them (PgBouncer 1.21+ with `max_prepared_statements`).
   * @default named on a direct connection, unnamed through a pooler
   */
  preparedStatements?: boolean;
  /**
   * Epoch-ms clock that `waitForWork` uses to tell when the earliest scheduled
   * entry falls due; pass the service's clock when tests drive time.
   * @default Date.now
   */
  clock?: () => number;
  /**
   * Told when the LISTEN connection fails or drops (it reconnects by itself),
   * and once when LISTEN hears nothing (`listen_silent`).
   * @default () => {}
   */
  onError?: (error: unknown) => void;
}

interface ClaimRow extends DeliveryRow {
  claim_id: string;
  run_at: string;
  lease_until: string;
}

/**
 * Least time `waitForWork` waits after a claim that failed (a schema not
 * migrated yet, a database out of reach): a failing claim is retried about once
 * a second, whatever the poll interval and however many wake-ups arrive.
 */
const FAILED_CLAIM_WAIT_MS = 1_000;

/** setTimeout's largest delay; a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Creates the PostgreSQL {@link DeliveryQueue}. The queue is not a table of its
 * own: it is three columns of the store's deliveries table (`run_at`, `claim_id`,
 * `lease_until`), so it only works together with {@link createPgStore} on the
 * same schema, and an enqueue of an id the store does not hold is an error.
 *
 * @example
 * ```ts
 * const webhooks = createWebhookService({
 *   store: createPgStore({ pool }),
 *   queue: createPgQueue({ pool }),
 * });
 * ```
 * @throws InvalidOptionError (`invalid_option`) when `pool` is missing or `schema` is not a plain identifier
 */
export function createPgQueue(options: PgQueueOptions): DeliveryQueue {
  return new PgDeliveryQueue(requirePool(options, 'createPgQueue'), options);
}

class PgDeliveryQueue implements DeliveryQueue {
  readonly capabilities;
  readonly #pool: Pool;
  readonly #schema;
  readonly #context;
  readonly #sql;
  readonly #claimSql;
  readonly #preparedOption: boolean | undefined;
  readonly #clock: () => number;
  readonly #listener: WakeupListener | null;
  /** Where problems found outside any call go: the services using this queue. */
  readonly #reporters = new Set<(error: unknown) => void>();
  readonly #onError: ((error: unknown) => void) | undefined;
  /** Listener generation when the latest claim started (see WakeupListener). */
  #claimedAtGeneration = 0;
  /**
   * The agency this queue served last: the next claim's rotation starts after it
   * (in agency_id order, wrapping around). Each queue object keeps its own; ''
   * sorts before every agency id.
   */
  #cursor = '';
  /**
   * Entries one agency may give to the next claim statement: 1 while more
   * agencies have work than a claim takes (one round covers them, and round one
   * needs no extra read per agency); more once a claim found fewer agencies
   * than its limit, so that the next claim goes the rounds it needs over those
   * few in one statement rather than two.
   */
  #perAgency = 1;
  /** The latest claim rejected: the next wait ignores wake-ups (see waitForWork). */
  #claimFailed = false;
  #closed = false;

  constructor(pool: Pool, options: PgQueueOptions) {
    this.#pool = pool;
    this.#schema = parseSchemaName(options.schema);
    this.#context = schemaContext(pool, this.#schema);
    this.#sql = queueStatements(this.#schema);
    this.#claimSql = claimStatement(this.#schema);
    this.#preparedOption = options.preparedStatements;
    this.#clock = options.clock ?? Date.now;
    this.#onError = options.onError;
    const notify = options.notify ?? true;
    const listen = assertListenOption(options.listen, notify);
    const listener = notify
      ? new WakeupListener({
          pool,
          channel: wakeupChannel(this.#schema),
          listen,
          onError: (error) => this.#onError?.(error),
          onSilent: (error) => this.#reportSilent(error),
        })
      : null;
    this.#listener = listener;
    this.capabilities = Object.freeze({
      transactions: true,
      excludeAgencies: true,
      // Read at each use: false once LISTEN is known to hear nothing.
      get wakeups(): boolean {
        if (!listener || listener.silent) return false;
        return listen !== undefined || isPooled(pool) !== true;
      },
      sharedAgencyLimit: true,
    });
  }

  async enqueue(entry: QueueEntry, options?: TransactionOptions): Promise<void> {
    const target = transactionTarget(this.#pool, options);
    this.#context.claims.released(entry.deliveryId);
    if (this.#context.fresh.take(entry.deliveryId, entry.runAt, options?.transaction)) return;
    await this.#context.ensureMigrated();
    const result = await target.query(this.#config(this.#sql.enqueue, [entry.deliveryId, entry.runAt]));
    if (result.rowCount === 0) {
      throw new WebhookError(
        'delivery_not_found',
        `@svc/webhooks-pg: cannot enqueue delivery "${entry.deliveryId}": schema "${this.#schema.name}" holds ` +
          'no such delivery. The PostgreSQL queue schedules rows of the PostgreSQL store; insert the delivery ' +
          'with createPgStore() on the same schema first.',
        { details: { deliveryId: entry.deliveryId } },
      );
    }
  }

  /**
   * Gives each delivery an entry only when it has none (no `run_at`: neither queued nor claimed),
   * in one statement; a queued entry keeps its due time and a live claim is never dropped.
   */
  async enqueueMissing(entries: readonly QueueEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    await this.#context.ensureMigrated();
    const result = await this.#pool.query(
      this.#config(this.#sql.enqueueMissing, [
        entries.map((entry) => entry.deliveryId),
        entries.map((entry) => entry.runAt),
      ]),
    );
    return result.rowCount ?? 0;
  }

  async claim(options: ClaimOptions): Promise<Claim[]> {
    assertClaimOptions(options);
    if (options.limit < 1) return [];
    try {
      const claims = await this.#claim(options);
      this.#claimFailed = false;
      return claims;
    } catch (error) {
      this.#claimFailed = true;
      throw error;
    }
  }

  async #claim(options: ClaimOptions): Promise<Claim[]> {
    await this.#context.ensureMigrated();
    await this.#startListening();
    if (this.#listener) this.#claimedAtGeneration = this.#listener.generation;
    const { limit } = options;
    let rows = await this.#claimRounds(options, limit, this.#perAgency);
    const agencies = new Set(rows.map((row) => row.agency_id)).size;
    if (rows.length < limit && agencies > 0 && agencies * this.#perAgency < limit) {
      // Fewer agencies have work than the claim takes, and the rounds allowed
      // ran out first: go the rounds still needed over those agencies.
      const more = limit - rows.length;
      rows = rows.concat(await this.#claimRounds(options, more, Math.ceil(more / agencies)));
    }
    this.#perAgency = rows.length < limit && agencies > 0 ? Math.ceil(limit / agencies) : 1;
    return rows.map((row) => {
      this.#context.claims.claimed(row.claim_id, toDeliveryRecord(row));
      return {
        deliveryId: row.id,
        agencyId: row.agency_id,
        claimId: row.claim_id,
        runAt: Number(row.run_at),
        leaseUntil: Number(row.lease_until),
      };
    });
  }

  /** One claim statement: at most `perAgency` rounds, continuing the rotation. */
  async #claimRounds(options: ClaimOptions, limit: number, perAgency: number): Promise<ClaimRow[]> {
    const rows = await this.#query<ClaimRow>(this.#claimSql, [
      options.now,
      limit,
      options.excludeAgencies ?? [],
      options.leaseMs,
      this.#cursor,
      options.perAgencyLimit ?? null,
      perAgency,
    ]);
    this.#cursor = lastServed(rows, this.#cursor) ?? this.#cursor;
    return rows;
  }

  async renew(claim: Claim, leaseMs: number, now: number): Promise<boolean> {
    const held = await this.#onClaim(this.#sql.renew, [claim.deliveryId, claim.claimId, now + leaseMs]);
    if (!held) this.#context.claims.released(claim.deliveryId, claim.claimId);
    return held;
  }

  async ack(claim: Claim): Promise<boolean> {
    // Already done by the compare-and-set that recorded the attempt (see ClaimLedger).
    if (this.#context.claims.takeSettled(claim.claimId, null)) return true;
    this.#context.claims.released(claim.deliveryId, claim.claimId);
    return this.#onClaim(this.#sql.ack, [claim.deliveryId, claim.claimId]);
  }

  async reschedule(claim: Claim, runAt: number): Promise<boolean> {
    if (this.#context.claims.takeSettled(claim.claimId, runAt)) return true;
    this.#context.claims.released(claim.deliveryId, claim.claimId);
    return this.#onClaim(this.#sql.reschedule, [claim.deliveryId, claim.claimId, runAt]);
  }

  /**
   * After a claim that failed, waits the whole timeout (at least a second) and
   * ignores wake-ups: the failure (most often a schema not migrated yet, while
   * processes of the release before keep emitting and notifying) would only
   * repeat at every NOTIFY, thousands of times a second.
   *
   * While LISTEN is not known to hear (silent, reconnecting, its test
   * notification not back yet), waits end after at most {@link FALLBACK_POLL_MS}:
   * a delivery emitted meanwhile is claimed at the next poll.
   */
  async waitForWork(options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    const { signal } = options;
    if (this.#closed || signal?.aborted) return;
    if (this.#claimFailed) return sleep(Math.max(options.timeoutMs, FAILED_CLAIM_WAIT_MS), signal);
    const listener = this.#listener;
    if (listener && listener.generation !== this.#claimedAtGeneration) return;
    if (listener && !listener.hearing) {
      void listener.start();
      // No query for the next due time: the poll comes sooner than most would.
      return listener.wait(Math.min(options.timeoutMs, FALLBACK_POLL_MS), signal);
    }
    const delay = Math.min(options.timeoutMs, await this.#msUntilNextClaimable());
    if (listener && listener.generation !== this.#claimedAtGeneration) return;
    if (listener) {
      void listener.start();
      return listener.wait(delay, signal);
    }
    return sleep(delay, signal);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#listener?.close();
  }

  reportErrorsTo(report: (error: unknown) => void): void {
    this.#reporters.add(report);
  }

  /** Once per queue: to the services' hooks and loggers and to `onError`; a process warning when none listens. */
  #reportSilent(error: ListenSilentError): void {
    this.#onError?.(error);
    for (const report of this.#reporters) report(error);
    if (!this.#onError && this.#reporters.size === 0)
      process.emitWarning(error.message, 'ListenSilentWarning');
  }

  /** Starts LISTEN before the first claim, so no NOTIFY after that claim is missed. */
  async #startListening(): Promise<void> {
    const listener = this.#listener;
    if (!listener || listener.listening || this.#closed) return;
    await listener.start();
  }

  /** Time until the earliest entry that is not yet claimable becomes so; best effort. */
  async #msUntilNextClaimable(): Promise<number> {
    try {
      await this.#context.ensureMigrated();
      const now = this.#clock();
      const rows = await this.#query<{ at: string | null }>(this.#sql.nextClaimableAt, [now]);
      const at = rows[0]?.at ?? null;
      return at === null ? MAX_TIMER_MS : Math.min(MAX_TIMER_MS, Math.max(0, Number(at) - now));
    } catch {
      // waitForWork never rejects; the caller's timeout still bounds the wait.
      return MAX_TIMER_MS;
    }
  }

  async #onClaim(stmt: Statement, values: unknown[]): Promise<boolean> {
    await this.#context.ensureMigrated();
    const result = await this.#pool.query(this.#config(stmt, values));
    return result.rowCount === 1;
  }

  async #query<Row extends object>(stmt: Statement, values: unknown[]): Promise<Row[]> {
    return run<Row & Record<string, unknown>>(this.#pool, stmt, values, this.#prepared());
  }

  #config(stmt: Statement, values: unknown[]) {
    return queryConfig(stmt, values, this.#prepared());
  }

  #prepared(): boolean {
    return this.#context.prepared(this.#preparedOption);
  }
}

/**
 * The `listen` option, checked at construction.
 * @throws InvalidOptionError (`invalid_option`, option `listen`) when it is neither a connection string, a client config nor a client, or given with `notify: false`
 */
function assertListenOption(listen: unknown, notify: boolean): ListenTarget | undefined {
  if (listen === undefined) return undefined;
  if (!notify) {
    throw new InvalidOptionError(
      '@svc/webhooks-pg',
      'listen',
      '`listen` is where the queue LISTENs for wake-ups, which `notify: false` turns off: drop one of the two.',
    );
  }
  if ((typeof listen === 'string' && listen.length > 0) || (typeof listen === 'object' && listen !== null)) {
    return listen as ListenTarget;
  }
  throw new InvalidOptionError(
    '@svc/webhooks-pg',
    'listen',
    '`listen` must be a connection string, a node-postgres client config or a connected pg.Client that ' +
      'reaches PostgreSQL directly, e.g. createPgWebhooks({ pool, listen: process.env.DIRECT_DATABASE_URL }).',
  );
}

/** @throws InvalidOptionError (`invalid_option`) for a `leaseMs` or `perAgencyLimit` the claim cannot honour */
function assertClaimOptions(options: ClaimOptions): void {
  if (!(options.leaseMs > 0)) {
    throw new InvalidOptionError(
      '@svc/webhooks-pg',
      'leaseMs',
      `claim() needs \`leaseMs\` as a positive number of ms, got ${options.leaseMs}.`,
    );
  }
  const cap = options.perAgencyLimit;
  if (cap !== undefined && !(Number.isSafeInteger(cap) && cap >= 1)) {
    throw new InvalidOptionError(
      '@svc/webhooks-pg',
      'perAgencyLimit',
      `claim() needs \`perAgencyLimit\` as a whole number of claims, 1 or more (or left out), got ${cap}.`,
    );
  }
}

/**
 * The agency a claim served last, in rotation order: an agency's k-th entry in
 * one claim came in round k, so it is the agency with the most entries, and of
 * those the furthest round the ring from `cursor` (after it first, then from the
 * start up to it).
 */
function lastServed(rows: readonly ClaimRow[], cursor: string): string | undefined {
  const entries = new Map<string, number>();
  for (const row of rows) entries.set(row.agency_id, (entries.get(row.agency_id) ?? 0) + 1);
  let last: string | undefined;
  for (const [agencyId, count] of entries) {
    if (
      last === undefined ||
      count > entries.get(last)! ||
      (count === entries.get(last) && later(agencyId, last))
    ) {
      last = agencyId;
    }
  }
  return last;

  function later(a: string, b: string): boolean {
    const lapA = byteOrder(a, cursor) <= 0 ? 1 : 0;
    const lapB = byteOrder(b, cursor) <= 0 ? 1 : 0;
    return lapA !== lapB ? lapA > lapB : byteOrder(a, b) > 0;
  }
}

/** Compares as agency_id's "C" collation does: by UTF-8 bytes (JavaScript's `<` compares UTF-16 units). */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
