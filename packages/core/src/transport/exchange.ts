import { setMaxListeners } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { lagCreditMs } from '../deadline';
import { utf8Prefix } from './response-excerpt';

/*
 * One request/response exchange on an undici dispatcher, read through undici's
 * handler interface rather than `request()`.
 *
 * Why: `request()` wraps every response in a Readable stream and the caller's
 * AbortSignal in listeners, and a webhook attempt needs neither: it keeps the
 * status, two headers and at most a few KiB of the body. The stream, its
 * listeners and the per-attempt AbortSignal plumbing showed up in the sender's
 * CPU profile in bench/delivery; plain chunks avoid them. It also lets the
 * deadline settle the attempt at the exact moment it fires, whatever undici is
 * doing (a request still queued for a socket included).
 *
 * Two clocks, so that the receiver is charged only for its own time. Until
 * undici hands the request to a connection (`onRequestStart`, just before it
 * writes the request), the request waits inside this process: for a free
 * connection of the pool, and behind it for the socket budget, the TLS
 * resumption gate, the connect pacer and the connect (which has its own
 * connect timeout). That wait is bounded by `localWaitMs` and ends as
 * `local_wait_exceeded`, never as the receiver's timeout. From the hand-over on,
 * `timeoutMs` is the receiver's, on a timer that gives back event-loop lag
 * (deadline.ts): a response that arrived while our loop was blocked is read
 * before the deadline is judged.
 */

/** How an exchange ended. Never a rejection: every end is one of these. */
export type ExchangeResult =
  | { kind: 'response'; statusCode: number; headers: IncomingHttpHeaders; excerpt: string | null }
  /** The receiver had its whole budget; `lagCreditedMs` of our own event-loop lag were given back on top. */
  | { kind: 'timed_out'; lagCreditedMs: number }
  /** Never handed to a connection within `localWaitMs`: nothing reached the receiver. */
  | { kind: 'local_wait_exceeded' }
  | { kind: 'aborted' }
  | { kind: 'failed'; error: Error };

/** Limits of one exchange. */
export interface ExchangeLimits {
  /** The receiver's budget: from the request's hand-over to a connection to the last body byte kept, in ms. */
  timeoutMs: number;
  /**
   * Longest wait inside this process before the hand-over, in ms; also the most
   * event-loop lag given back to the receiver's budget.
   */
  localWaitMs: number;
  /** Body bytes kept; past this the connection is dropped. */
  maxResponseBytes: number;
  /** The caller's signal; ends the exchange as `aborted`. */
  signal?: AbortSignal | undefined;
}

/** Our reason for dropping a connection; undici hands it back through onResponseError. */
class ExchangeStopped extends Error {
  constructor(why: string) {
    super(why);
    this.name = 'ExchangeStopped';
  }
}

/**
 * Sends one request and settles with its outcome.
 *
 * Headers arrived = the status decides the outcome: a later body error, the byte
 * limit or the deadline only shortens the excerpt. Before the headers, the
 * receiver's deadline, the local-wait bound or the caller's signal settles at
 * once as `timed_out` / `local_wait_exceeded` / `aborted`, and undici drops the
 * request as soon as it holds it.
 */
export function exchange(
  dispatcher: Dispatcher,
  request: Dispatcher.DispatchOptions,
  limits: ExchangeLimits,
): Promise<ExchangeResult> {
  return new Promise<ExchangeResult>((resolve) => {
    const handler = new ExchangeHandler(limits, resolve);
    try {
      dispatcher.dispatch(request, handler);
    } catch (error) {
      handler.onResponseError(null, error instanceof Error ? error : new Error(String(error)));
    }
  });
}

class ExchangeHandler implements Dispatcher.DispatchHandler {
  readonly #maxBytes: number;
  readonly #settle: (result: ExchangeResult) => void;
  readonly #timeoutMs: number;
  readonly #localWaitMs: number;
  /**
   * One timer for both clocks, as a single timer costs on the hot path (the answer
   * usually comes long before it fires): first armed for the receiver's budget,
   * since a hand-over moments later can only move the deadline later; when it
   * fires it works out which deadline, if any, has really passed, and re-arms for
   * the rest.
   */
  #timer: NodeJS.Timeout;
  /** When the timer was due to fire (performance.now()), to measure how late it did. */
  #timerDueAt: number;
  readonly #createdAt: number;
  /** When undici handed the request to a connection; null while it waits in this process. */
  #handedOverAt: number | null = null;
  /** Event-loop lag given back to the receiver so far, at most `localWaitMs`. */
  #lagCreditedMs = 0;
  readonly #signal: AbortSignal | undefined;
  #controller: Dispatcher.DispatchController | null = null;
  #settled = false;
  /** Why we dropped the request; undici may hold it only later, and is told then. */
  #dropped: ExchangeStopped | null = null;
  #statusCode = 0;
  #headers: IncomingHttpHeaders = {};
  #chunks: Buffer[] = [];
  #size = 0;
  /** The abort listener, made only when there is a signal (the worker sends without one). */
  #onSignal: (() => void) | null = null;

  constructor(limits: ExchangeLimits, settle: (result: ExchangeResult) => void) {
    this.#maxBytes = limits.maxResponseBytes;
    this.#settle = settle;
    this.#timeoutMs = limits.timeoutMs;
    this.#localWaitMs = limits.localWaitMs;
    this.#createdAt = performance.now();
    this.#timerDueAt = this.#createdAt + limits.timeoutMs;
    this.#timer = setTimeout(this.#onTimer, limits.timeoutMs);
    this.#signal = limits.signal;
    if (this.#signal) {
      if (this.#signal.aborted) {
        this.#interrupt('aborted');
      } else {
        // A worker naturally shares one stop signal across all its concurrent attempts, one listener
        // each; lift Node's leak warning (10 listeners) for it. Each listener goes when its exchange ends.
        setMaxListeners(0, this.#signal);
        this.#onSignal = () => this.#interrupt('aborted');
        this.#signal.addEventListener('abort', this.#onSignal, { once: true });
      }
    }
  }

  /** undici writes the request next: our waiting ends, the receiver's budget starts. */
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#dropped) {
      controller.abort(this.#dropped);
      return;
    }
    this.#handedOverAt ??= performance.now();
  }

  /**
   * The one timer fired: past the local-wait bound before any hand-over ends the
   * exchange as `local_wait_exceeded`; otherwise lateness beyond the tolerance is
   * given back to the receiver (our loop was blocked, not the receiver slow), and
   * only a receiver deadline still passed ends it, one turn later, once the I/O
   * that arrived meanwhile has been read.
   */
  readonly #onTimer = (): void => {
    if (this.#settled) return;
    const now = performance.now();
    if (this.#handedOverAt === null) {
      const localDeadline = this.#createdAt + this.#localWaitMs;
      if (now >= localDeadline) {
        this.#interrupt('local_wait_exceeded');
        return;
      }
      // Any hand-over from now on is due no sooner than now + timeoutMs.
      this.#arm(now, Math.min(localDeadline - now, this.#timeoutMs));
      return;
    }
    this.#lagCreditedMs += lagCreditMs(now - this.#timerDueAt, this.#lagCreditedMs, this.#localWaitMs);
    const dueAt = this.#handedOverAt + this.#timeoutMs + this.#lagCreditedMs;
    if (now < dueAt) {
      this.#arm(now, dueAt - now);
      return;
    }
    setImmediate(() => this.#interrupt('timed_out'));
  };

  #arm(now: number, delay: number): void {
    this.#timerDueAt = now + delay;
    this.#timer = setTimeout(this.#onTimer, delay);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    // Informational (1xx) heads come before the real one; only the final status counts.
    if (statusCode < 200) return;
    this.#statusCode = statusCode;
    this.#headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#size > this.#maxBytes) {
      // Enough for the excerpt: drop the connection instead of draining a huge or endless body.
      this.#finish();
      this.#drop('excerpt complete');
    }
  }

  onResponseEnd(): void {
    this.#finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.#finish(error);
  }

  /** A deadline or the caller's signal: settles now, then drops the request. */
  #interrupt(kind: 'timed_out' | 'local_wait_exceeded' | 'aborted'): void {
    if (this.#settled) return;
    if (this.#statusCode >= 200) this.#finish();
    else if (kind === 'timed_out') this.#settleWith({ kind, lagCreditedMs: this.#lagCreditedMs });
    else this.#settleWith({ kind });
    this.#drop(kind);
  }

  /** Tells undici to give up the request (now, or as soon as it holds it). */
  #drop(why: string): void {
    if (this.#dropped) return;
    this.#dropped = new ExchangeStopped(why);
    this.#controller?.abort(this.#dropped);
  }

  /** The end of the exchange as undici reports it: a response (however short its body) or a failure. */
  #finish(error?: Error): void {
    if (this.#settled) return;
    if (this.#statusCode < 200) {
      this.#settleWith({ kind: 'failed', error: error ?? new Error('The response ended without a status') });
      return;
    }
    const chunks = this.#chunks;
    // A short answer ("ok") comes in one chunk: decode it where it lies rather than copy it first.
    const excerpt =
      this.#size === 0
        ? null
        : utf8Prefix(
            chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#size),
            this.#maxBytes,
          );
    this.#settleWith({ kind: 'response', statusCode: this.#statusCode, headers: this.#headers, excerpt });
  }

  #settleWith(result: ExchangeResult): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    if (this.#onSignal) this.#signal?.removeEventListener('abort', this.#onSignal);
    this.#chunks = [];
    this.#settle(result);
  }
}
