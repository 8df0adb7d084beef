import type { buildConnector } from 'undici';

/*
 * One cap on the sockets of every pool and one-shot connection of a transport.
 *
 * undici caps connections per pool, not across pools, and a tenant chooses its
 * own origin: without a shared cap, many tenants (or one tenant with many test
 * sends) could open sockets without end. So every connector of the transport
 * goes through this budget. A connect at the cap first asks the transport to
 * give up idle connections (closing its least recently used idle pool), then
 * waits its turn, and while anyone waits, each pool that falls idle is closed
 * too. The wait is ours, not the receiver's: it never counts against the
 * attempt's `timeoutMs`, and the attempt's local-wait bound (`localWaitMs`,
 * exchange.ts) ends it whatever the wait. A connect that got its place after
 * its attempt ended just leaves an idle socket, which the keep-alive timeout closes.
 */

/** Counts a transport's open sockets and holds new connects at the cap. */
export class SocketBudget {
  readonly #max: number;
  readonly #reclaim: () => boolean;
  #live = 0;
  #peak = 0;
  readonly #waiting: Array<() => void> = [];

  /**
   * @param max - Most sockets open at once.
   * @param reclaim - Asked to close idle connections when the cap is reached; true when it closed something.
   */
  constructor(max: number, reclaim: () => boolean) {
    this.#max = max;
    this.#reclaim = reclaim;
  }

  /** Sockets open now, connecting ones included. */
  get live(): number {
    return this.#live;
  }

  /** The most sockets open at once since the budget was made. */
  get peak(): number {
    return this.#peak;
  }

  get max(): number {
    return this.#max;
  }

  /** Whether a connect is waiting for a place: idle connections should then be given up. */
  get pressed(): boolean {
    return this.#waiting.length > 0;
  }

  /** A connector that takes a place in the budget before connecting and gives it back when the socket closes. */
  wrap(connect: buildConnector.connector): buildConnector.connector {
    return (options, callback) => {
      this.#take(() => {
        connect(options, (...args) => {
          const [error, socket] = args;
          if (error || !socket) this.#giveBack();
          else socket.once('close', () => this.#giveBack());
          callback(...args);
        });
      });
    };
  }

  #take(start: () => void): void {
    if (this.#live >= this.#max) this.#reclaim();
    // Closing idle pools frees places only when their sockets have closed: wait for that.
    if (this.#live >= this.#max) {
      this.#waiting.push(start);
      return;
    }
    this.#live += 1;
    if (this.#live > this.#peak) this.#peak = this.#live;
    start();
  }

  #giveBack(): void {
    this.#live -= 1;
    const next = this.#waiting.shift();
    if (next) {
      this.#live += 1;
      next();
    }
  }
}
