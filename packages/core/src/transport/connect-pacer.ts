import type { buildConnector } from 'undici';

/*
 * TLS connects spread over turns of the event loop.
 *
 * Starting a TLS connection is synchronous work: the socket, the TLS state and,
 * to resume, the session parsed (it carries the receiver's certificate), about
 * 0.3 ms of CPU. A herd of connects all starts in one go: a worker that starts on
 * a backlog dispatches a few hundred first attempts at once, and the connects a
 * pool held for its first TLS session are released together (resumption-gate.ts).
 * Started in one loop, they held the event loop for tens of milliseconds: no
 * response was read, no handshake went on, no API request of the host was
 * served, and connections ready after a few milliseconds carried their first
 * request only once the whole herd had started. On the isolation benchmark (two
 * cores), the longest stall of a cold start fell from 141–227 ms to 22–31 ms with
 * 100 new origins, and from 39–85 ms to 11–35 ms with one shared origin (184
 * held connects released at once); the rest is the worker's own dispatching.
 *
 * So each turn of the event loop starts at most `perTurn` connects; the others
 * start in the next turns, after the loop has read what arrived meanwhile. On an
 * idle loop a turn takes well under a millisecond, so a herd of 200 starts within
 * a few, far less than a round trip to any receiver: nothing waits for the
 * network, only for the CPU it was going to take anyway.
 */

type Connector = buildConnector.connector;

/** Connects started per turn of the event loop: a few milliseconds of CPU at most. */
export const CONNECTS_PER_TURN = 8;

/** Starts connects at most {@link CONNECTS_PER_TURN} (or `perTurn`) per turn of the event loop, in order. */
export class ConnectPacer {
  readonly #perTurn: number;
  #startedThisTurn = 0;
  #turnEnding = false;
  readonly #waiting: Array<() => void> = [];

  constructor(perTurn = CONNECTS_PER_TURN) {
    this.#perTurn = perTurn;
  }

  /** Connects waiting for a later turn. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** A connector that starts its connects through this pacer. */
  wrap(connect: Connector): Connector {
    return (options, callback) => {
      this.#run(() => {
        let answered = false;
        try {
          connect(options, (...args) => {
            answered = true;
            callback(...args);
          });
        } catch (error) {
          // A connect that failed to start answers with its error: started in a later turn, a
          // throw would reach no caller. A throw from the callback itself is the caller's own.
          if (answered) throw error;
          callback(error as Error, null);
        }
      });
    };
  }

  #run(start: () => void): void {
    this.#endTurnSoon();
    if (this.#waiting.length > 0 || this.#startedThisTurn >= this.#perTurn) {
      this.#waiting.push(start);
      return;
    }
    this.#startedThisTurn += 1;
    start();
  }

  /** The count belongs to this turn: setImmediate runs after the loop has polled for I/O. */
  #endTurnSoon(): void {
    if (this.#turnEnding) return;
    this.#turnEnding = true;
    setImmediate(() => {
      this.#turnEnding = false;
      const starts = this.#waiting.splice(0, this.#perTurn);
      this.#startedThisTurn = starts.length;
      if (starts.length > 0) this.#endTurnSoon();
      for (const start of starts) start();
    });
  }
}
