import type { Notification, Pool, PoolClient } from 'pg';

/** How long to wait before trying again after the LISTEN connection failed. */
const RECONNECT_DELAY_MS = 1_000;

/**
 * Holds one pool connection in LISTEN on the queue's channel and turns each
 * NOTIFY into a wake-up of every waiting `waitForWork`.
 *
 * `generation` counts notifications, so a caller can tell whether one arrived
 * since a point in time (the start of its last claim) and skip waiting: that
 * closes the window between "claim found nothing" and "started waiting".
 *
 * When the connection drops, every waiter is woken (something may have been
 * missed) and the next use reconnects; until then waits fall back to their
 * timeouts, so delivery slows down but never stops.
 */
export class WakeupListener {
  #client: PoolClient | null = null;
  #connecting: Promise<void> | null = null;
  #lastFailureAt = Number.NEGATIVE_INFINITY;
  #generation = 0;
  #closed = false;
  readonly #waiters = new Set<() => void>();

  constructor(
    private readonly pool: Pool,
    private readonly channel: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Notifications received so far (a dropped connection counts as one). */
  get generation(): number {
    return this.#generation;
  }

  /** True while the LISTEN connection is up. */
  get listening(): boolean {
    return this.#client !== null;
  }

  /**
   * Connects and listens unless already done (or failed within the last second).
   * Never rejects: a failure is reported to `onError` and waits use their timeouts.
   */
  start(): Promise<void> {
    if (this.#closed || this.#client) return Promise.resolve();
    if (Date.now() - this.#lastFailureAt < RECONNECT_DELAY_MS) return Promise.resolve();
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

  /** Stops listening and gives the connection up (destroyed, never reused). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wakeAll();
    await this.#connecting;
    this.#drop(undefined);
  }

  async #connect(): Promise<void> {
    let client: PoolClient | undefined;
    try {
      client = await this.pool.connect();
      client.on('notification', this.#onNotification);
      client.on('error', this.#onConnectionError);
      await client.query(`LISTEN "${this.channel}"`);
      // Internal only: caught just below, which gives the connection up; never
      // reported, because onError is not called once the listener is closed.
      if (this.#closed) throw new Error('closed while connecting');
      this.#client = client;
    } catch (error) {
      this.#lastFailureAt = Date.now();
      if (client) this.#release(client, error);
      if (!this.#closed) this.onError(error);
    }
  }

  readonly #onNotification = (message: Notification): void => {
    if (message.channel !== this.channel) return;
    this.#generation++;
    this.#wakeAll();
  };

  readonly #onConnectionError = (error: Error): void => {
    this.#lastFailureAt = Date.now();
    this.#drop(error);
    this.onError(error);
  };

  #drop(error: Error | undefined): void {
    const client = this.#client;
    this.#client = null;
    if (client) this.#release(client, error);
    // Notifications sent while we were not listening are lost: count the drop as
    // one, so waiters (and a caller about to wait) look for work instead.
    this.#generation++;
    this.#wakeAll();
  }

  #release(client: PoolClient, error: unknown): void {
    client.off('notification', this.#onNotification);
    client.off('error', this.#onConnectionError);
    // Swallow late errors of a connection we are giving up.
    client.on('error', () => undefined);
    // Destroy rather than return it: a pooled connection must not stay in LISTEN.
    client.release(error instanceof Error ? error : true);
  }

  #wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
