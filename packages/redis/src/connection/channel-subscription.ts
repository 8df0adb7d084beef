import { isCluster, type RedisClient } from './connection';

/**
 * One subscriber connection (a `duplicate()` of the command client: a
 * subscribed connection can run nothing else) serving several channels.
 *
 * `live` is true only between a confirmed SUBSCRIBE and the next sign of
 * trouble (close, reconnect, end): only then does a quiet channel mean nothing
 * was published. Handlers registered with `whenLive` run each time the
 * subscription is (re)established, those with `whenLost` each time it drops,
 * so users can resynchronise whatever they derive from the messages.
 */
export class ChannelSubscription {
  #subscriber: RedisClient | null = null;
  #live = false;
  #closed = false;
  readonly #handlers = new Map<string, (message: string) => void>();
  readonly #onLive: (() => void)[] = [];
  readonly #onLost: (() => void)[] = [];

  /** `name` is the subscriber's CLIENT SETNAME, so operators can tell it apart in CLIENT LIST. */
  constructor(
    private readonly source: RedisClient,
    private readonly name: string,
  ) {}

  /** Routes the channel's messages to `handler`. Register before `open`. */
  on(channel: string, handler: (message: string) => void): void {
    this.#handlers.set(channel, handler);
  }

  whenLive(callback: () => void): void {
    this.#onLive.push(callback);
  }

  whenLost(callback: () => void): void {
    this.#onLost.push(callback);
  }

  get live(): boolean {
    return this.#live;
  }

  /** Opens the connection and subscribes (idempotent; a no-op once closed). */
  open(): void {
    if (this.#subscriber || this.#closed) return;
    // `#subscribe` resubscribes on every ready and is the one that knows when the
    // subscription is live; ioredis's own resubscribe would send a second SUBSCRIBE
    // whose rejection, when the connection is quit mid-reconnect, nobody catches.
    const subscriber = isCluster(this.source)
      ? this.source.duplicate()
      : this.source.duplicate({ connectionName: this.name, autoResubscribe: false });
    this.#subscriber = subscriber;
    // Connection errors are retried by ioredis; users fall back to polling meanwhile.
    subscriber.on('error', () => {});
    subscriber.on('message', (channel: string, message: string) => this.#handlers.get(channel)?.(message));
    // On every (re)connect, subscribe ourselves and go live only once Redis confirms.
    subscriber.on('ready', () => this.#subscribe(subscriber));
    for (const event of ['close', 'reconnecting', 'end']) subscriber.on(event, () => this.#lose());
    if (isCluster(subscriber)) {
      // A cluster client stays ready while its one subscriber connection moves to another
      // node (its node failed over or left): messages published meanwhile are missed, so
      // count the subscription lost and live again only once Redis confirms it anew.
      for (const event of ['-node', 'node error']) {
        subscriber.on(event, () => {
          this.#lose();
          this.#subscribe(subscriber);
        });
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#lose();
    const subscriber = this.#subscriber;
    this.#subscriber = null;
    if (!subscriber) return;
    try {
      await subscriber.quit();
    } catch {
      subscriber.disconnect();
    }
  }

  #subscribe(subscriber: RedisClient): void {
    subscriber
      .subscribe(...this.#handlers.keys())
      .then(() => {
        if (this.#subscriber !== subscriber || subscriber.status !== 'ready') return;
        this.#live = true;
        for (const callback of this.#onLive) callback();
      })
      .catch(() => {});
  }

  #lose(): void {
    if (!this.#live) return;
    this.#live = false;
    for (const callback of this.#onLost) callback();
  }
}

/** CLIENT SETNAME of a subscriber: the key prefix (names cannot hold spaces) and a role. */
export function subscriberName(base: string): string {
  return `${base.replace(/[^\w:{}.-]/g, '_')}subscriber`;
}
