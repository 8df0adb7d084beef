import { randomUUID } from 'node:crypto';
import type { Client, ClientBase, ClientConfig, Notification, Pool } from 'pg';
import { isPooled } from '../connection-kind';
import { ListenSilentError } from './listen-silent-error';

/** How long to wait before trying again after the LISTEN connection failed. */
const RECONNECT_DELAY_MS = 1_000;

/**
 * How long the notification the listener sends itself may take to arrive. A
 * server on the same network delivers it in a millisecond or two; this leaves
 * room for a loaded machine and a slow link without polling for long.
 */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * How often waits end without LISTEN (silent, reconnecting, or not yet proven):
 * short enough that a delivery emitted meanwhile is claimed well within 100 ms,
 * at the cost of one claim statement per poll per idle worker.
 */
export const FALLBACK_POLL_MS = 50;

/** After a LISTEN that heard nothing, how long until the next try. */
const SILENT_RETRY_MS = 60_000;

/** Payloads of the listener's own notifications start with this (the trigger's are empty). */
const PROBE_PREFIX = 'svc-webhooks-probe:';

/**
 * Where the queue LISTENs: a connection string or node-postgres client config
 * (the queue opens its own connection there and reopens it after a drop), or a
 * connected `pg.Client` the host owns (never ended by the queue).
 */
export type ListenTarget = string | ClientConfig | Client;

/** One LISTEN connection and how to give it up. */
interface ListenConnection {
  client: ClientBase;
  /** Gives the connection up: destroyed, ended, or (a host's client) UNLISTENed. */
  release(error: unknown): void;
}

/** Opens a LISTEN connection; null when none can ever be opened again. */
type ListenSource = (channel: string) => Promise<ListenConnection | null>;

/** Options of {@link WakeupListener}. */
export interface WakeupListenerOptions {
  /** Where the self-addressed notifications go, as the emits' do. */
  pool: Pool;
  channel: string;
  /** A session connection for LISTEN; the pool's own connections when left out. */
  listen: ListenTarget | undefined;
  /** Told when the LISTEN connection fails or drops. */
  onError: (error: unknown) => void;
  /** Told, once, that LISTEN hears nothing and waits poll instead. */
  onSilent: (error: ListenSilentError) => void;
}

/**
 * Holds one connection in LISTEN on the queue's channel and turns each NOTIFY
 * into a wake-up of every waiting `waitForWork`.
 *
 * `generation` counts notifications, so a caller can tell whether one arrived
 * since a point in time (the start of its last claim) and skip waiting: that
 * closes the window between "claim found nothing" and "started waiting".
 *
 * A LISTEN is only trusted once it heard a notification the listener sent
 * itself through the pool right after it (on every connect and reconnect):
 * behind a transaction pooler a LISTEN succeeds and then hears nothing.
 * Until then, and for good when the notification does not come, `hearing` is
 * false and the queue polls at a short interval.
 *
 * When the connection drops, every waiter is woken (something may have been
 * missed) and the next use reconnects.
 */
export class WakeupListener {
  #connection: ListenConnection | null = null;
  #connecting: Promise<void> | null = null;
  #retryAt = Number.NEGATIVE_INFINITY;
  #generation = 0;
  #hearing = false;
  #probeToken: string | null = null;
  #probeHeard: (() => void) | null = null;
  #reportedSilent = false;
  #closed = false;
  readonly #waiters = new Set<() => void>();
  readonly #source: ListenSource;

  constructor(private readonly options: WakeupListenerOptions) {
    this.#source = listenSource(options.pool, options.listen);
  }

  /** Notifications received so far (a dropped connection counts as one). */
  get generation(): number {
    return this.#generation;
  }

  /** True while the LISTEN connection is up (heard from or not yet). */
  get listening(): boolean {
    return this.#connection !== null;
  }

  /** True once the LISTEN connection heard its own notification, until it drops. */
  get hearing(): boolean {
    return this.#hearing;
  }

  /** True once LISTEN was found to hear nothing, until it hears again. */
  get silent(): boolean {
    return this.#reportedSilent && !this.#hearing;
  }

  /**
   * Connects and listens unless already done (or failed within the last
   * second, or found silent within the last minute). Never rejects: a failure
   * is reported to `onError` and waits poll.
   */
  start(): Promise<void> {
    if (this.#closed || this.#connection) return Promise.resolve();
    if (Date.now() < this.#retryAt) return Promise.resolve();
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  /** Resolves on the next notification, after `timeoutMs`, on abort or on close. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#closed || signal?.aborted) {
        resolve();
        return;
      }
      const finish = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        this.#waiters.delete(finish);
        resolve();
      };
      const timer = setTimeout(finish, Math.max(0, timeoutMs));
      signal?.addEventListener('abort', finish, { once: true });
      this.#waiters.add(finish);
    });
  }

  /** Stops listening and gives the connection up. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wakeAll();
    this.#probeHeard?.();
    await this.#connecting;
    this.#drop(undefined);
  }

  async #connect(): Promise<void> {
    if (this.options.listen === undefined && isPooled(this.options.pool) === true) {
      // LISTEN through a transaction pooler registers on whichever server
      // connection the statement got, which then serves other clients: never heard.
      this.#retryAt = Number.POSITIVE_INFINITY;
      this.#silent(
        `the pool goes through a pooler (its connections do not announce the server process they use), where ` +
          `LISTEN hears nothing, so workers poll every ${FALLBACK_POLL_MS} ms instead of being woken. For wake-ups within ` +
          'milliseconds, pass `listen` (a connection string or client config that reaches PostgreSQL directly, ' +
          'or through a session-mode pooler) to createPgWebhooks() / createPgQueue().',
      );
      return;
    }
    let connection: ListenConnection | null = null;
    try {
      connection = await this.#source(this.options.channel);
      if (!connection) {
        this.#retryAt = Number.POSITIVE_INFINITY;
        this.#silent(
          'the `listen` client has ended and a node-postgres client cannot reconnect, so workers poll every ' +
            `${FALLBACK_POLL_MS} ms from now on. Pass ` +
            '`listen` a connection string or client config to let the queue reconnect.',
        );
        return;
      }
      connection.client.on('notification', this.#onNotification);
      connection.client.on('error', this.#onConnectionError);
      await connection.client.query(`LISTEN "${this.options.channel}"`);
      // Internal only: caught just below, which gives the connection up; never
      // reported, because onError is not called once the listener is closed.
      if (this.#closed) throw new Error('closed while connecting');
      this.#connection = connection;
    } catch (error) {
      this.#retryAt = Date.now() + RECONNECT_DELAY_MS;
      if (connection) this.#release(connection, error);
      if (!this.#closed) this.options.onError(error);
      return;
    }
    await this.#probe(connection);
  }

  /** Sends the listener a notification through the pool and waits for it to come back. */
  async #probe(connection: ListenConnection): Promise<void> {
    const token = `${PROBE_PREFIX}${randomUUID()}`;
    this.#probeToken = token;
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      this.#probeHeard = () => resolve(true);
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
    });
    try {
      await this.options.pool.query('SELECT pg_notify($1, $2)', [this.options.channel, token]);
    } catch (error) {
      // The pool is out of reach: nothing proven either way; the next drop or
      // connect probes again, and waits poll meanwhile.
      clearTimeout(timer);
      this.#probeHeard = null;
      if (!this.#closed) this.options.onError(error);
      return;
    }
    const arrived = await heard;
    clearTimeout(timer);
    this.#probeHeard = null;
    if (this.#closed || this.#connection !== connection) return;
    if (arrived || this.#hearing) {
      this.#hearing = true;
      return;
    }
    this.#retryAt = Date.now() + SILENT_RETRY_MS;
    this.#drop(undefined);
    this.#silent(
      `LISTEN "${this.options.channel}" did not hear a notification sent through the pool within ` +
        `${PROBE_TIMEOUT_MS} ms, so workers poll every ${FALLBACK_POLL_MS} ms instead of being woken (the queue tries LISTEN ` +
        'again every minute). Notifications are lost when the pool or the `listen` connection goes through a ' +
        'transaction pooler, or when the two reach different databases: pass `listen` a connection that ' +
        'reaches the same PostgreSQL database directly.',
    );
  }

  #silent(message: string): void {
    if (this.#reportedSilent || this.#closed) return;
    this.#reportedSilent = true;
    this.options.onSilent(new ListenSilentError(message));
  }

  readonly #onNotification = (message: Notification): void => {
    if (message.channel !== this.options.channel) return;
    // Anything heard on the channel proves the LISTEN works, even when our own
    // probe could not be sent (the pool out of reach for a moment).
    this.#hearing = this.#connection !== null;
    const payload = message.payload ?? '';
    if (payload.startsWith(PROBE_PREFIX)) {
      // Ours ends the probe; another queue's wakes nobody.
      if (payload === this.#probeToken) this.#probeHeard?.();
      return;
    }
    this.#generation++;
    this.#wakeAll();
  };

  readonly #onConnectionError = (error: Error): void => {
    this.#retryAt = Date.now() + RECONNECT_DELAY_MS;
    this.#drop(error);
    this.options.onError(error);
  };

  #drop(error: Error | undefined): void {
    const connection = this.#connection;
    this.#connection = null;
    this.#hearing = false;
    if (connection) this.#release(connection, error);
    // Notifications sent while we were not listening are lost: count the drop as
    // one, so waiters (and a caller about to wait) look for work instead.
    this.#generation++;
    this.#wakeAll();
  }

  #release(connection: ListenConnection, error: unknown): void {
    connection.client.off('notification', this.#onNotification);
    connection.client.off('error', this.#onConnectionError);
    connection.release(error);
  }

  #wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}

const ignore = (): void => undefined;

/** Where LISTEN connections come from for a `listen` option (or its absence). */
function listenSource(pool: Pool, listen: ListenTarget | undefined): ListenSource {
  if (listen === undefined) {
    return async () => {
      const client = await pool.connect();
      return {
        client,
        release(error) {
          // Swallow late errors of a connection we are giving up.
          client.on('error', ignore);
          // Destroy rather than return it: a pooled connection must not stay in LISTEN.
          client.release(error instanceof Error ? error : true);
        },
      };
    };
  }
  if (isClient(listen)) {
    let ended = false;
    listen.once('end', () => {
      ended = true;
    });
    return async (channel) => {
      if (ended) return null;
      return {
        client: listen,
        release() {
          // The host's client: stop listening on it, never end it.
          if (!ended) listen.query(`UNLISTEN "${channel}"`).catch(ignore);
        },
      };
    };
  }
  const config: ClientConfig = typeof listen === 'string' ? { connectionString: listen } : listen;
  // The pool's own Client class: the host's node-postgres, whatever copy of it.
  const ClientClass = (pool as unknown as { Client: new (config: ClientConfig) => Client }).Client;
  return async () => {
    const client = new ClientClass(config);
    client.on('error', ignore);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(ignore);
      throw error;
    }
    return {
      client,
      release() {
        client.end().catch(ignore);
      },
    };
  };
}

/** A node-postgres client (rather than a connection string or config). */
function isClient(value: ListenTarget): value is Client {
  return typeof value === 'object' && typeof (value as { query?: unknown }).query === 'function';
}
