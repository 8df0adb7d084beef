import type { RedisClient } from './connection';

/**
 * Wake-ups for idle workers over Redis pub/sub: every enqueue publishes on the
 * queue's channel, and a subscriber connection of our own (a `duplicate()` of
 * the command client, because a subscribed connection can run nothing else)
 * resolves the waiting `waitForWork` calls.
 *
 * Messages can be missed in two places, and both are covered: one that arrives
 * while nobody waits is remembered once (a worker that found nothing to claim
 * and starts waiting a moment later would otherwise sleep through it); and
 * enqueues made while the subscriber was (re)connecting are found by asking
 * `hasDueWork` each time the subscription comes up. Waits still end on their
 * timeout, so anything else lost costs at most one poll interval, never a delivery.
 */
export class WakeupListener {
  #subscriber: RedisClient | null = null;
  #waiters = new Set<() => void>();
  #missed = false;
  #closed = false;

  constructor(
    private readonly source: RedisClient,
    private readonly channel: string,
    private readonly hasDueWork: () => Promise<boolean>,
  ) {}

  /** Opens the subscriber connection now (idempotent), so the first wait does not race its setup. */
  prepare(): void {
    if (!this.#closed) this.#subscribe();
  }

  /** Resolves on the next wake-up, after `timeoutMs`, or when `signal` aborts. Never rejects. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted || this.#closed) return Promise.resolve();
    this.prepare();
    if (this.#missed) {
      this.#missed = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      signal?.addEventListener('abort', done, { once: true });
      this.#waiters.add(done);
    });
  }

  /** Wakes every waiter now and drops the subscriber connection. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wakeAll();
    const subscriber = this.#subscriber;
    this.#subscriber = null;
    if (!subscriber) return;
    try {
      await subscriber.quit();
    } catch {
      subscriber.disconnect();
    }
  }

  #subscribe(): void {
    if (this.#subscriber) return;
    const subscriber = this.source.duplicate();
    this.#subscriber = subscriber;
    // Connection errors are retried by ioredis; waits keep timing out meanwhile.
    subscriber.on('error', () => {});
    subscriber.on('message', () => this.#onMessage());
    let subscribedOnce = false;
    subscriber.on('ready', () => {
      // A reconnect: ioredis resubscribes on its own; look for what arrived meanwhile.
      if (subscribedOnce) this.#checkForMissedWork();
    });
    subscriber
      .subscribe(this.channel)
      .then(() => {
        subscribedOnce = true;
        this.#checkForMissedWork();
      })
      .catch(() => {});
  }

  #checkForMissedWork(): void {
    this.hasDueWork()
      .then((due) => {
        if (due) this.#onMessage();
      })
      .catch(() => {});
  }

  #onMessage(): void {
    if (this.#waiters.size === 0) {
      this.#missed = true;
      return;
    }
    this.#wakeAll();
  }

  #wakeAll(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
