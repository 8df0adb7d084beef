import { EventEmitter, setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { version } from '../package.json';
import { classifyRequestError, isInvalidArgument } from './attempt-error';
import type { AttemptErrorKind, AttemptOutcome } from './attempt-outcome';
import { InvalidWebhookUrlError } from './errors';
import { createPinnedPools } from './pinned-pools';
import { readExcerpt } from './response-excerpt';
import { parseRetryAfter } from './retry-after';
import type { CheckedUrl, UrlPolicy } from './url-policy';

/*
 * Why undici's `request` over a keep-alive Pool and not `fetch`: fetch reaches
 * about a seventh of the request rate here, follows redirects unless told
 * not to, and offers no hook to pin the socket to an address. Pinning and pool
 * keying are explained in pinned-pools.ts.
 *
 * One deadline covers the whole attempt: the send-time URL check (DNS), connect,
 * TLS, request, response headers and the bounded body read. An AttemptDeadline
 * carries it to undici, so the worker's lease only has to outlast
 * `timeoutMs`.
 */

/** Options of {@link createTransport}. */
export interface TransportOptions {
  /**
   * Time budget of one attempt in ms: send-time DNS check, connect, TLS,
   * response headers and the bounded body read together.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Extra TLS settings for connections to receivers, e.g. the CA of a local
   * test receiver. Leave `rejectUnauthorized` on outside tests.
   * @default undefined (system CAs, certificates verified)
   * @example
   * ```ts
   * createTransport({ urlPolicy, tls: { ca: receiver.ca } });
   * ```
   */
  tls?: { ca?: string | Buffer | Array<string | Buffer>; rejectUnauthorized?: boolean };
  /**
   * `User-Agent` of every delivery.
   * @default '@svc/webhooks/<version> (+https://github.com/svc/webhooks)'
   */
  userAgent?: string;
  /**
   * Most bytes of a response body kept as the excerpt; past this the connection is dropped.
   * @default 4096
   */
  maxResponseBytes?: number;
  /**
   * Keep-alive sockets per receiver origin.
   * @default 64
   */
  connectionsPerOrigin?: number;
}

/** One HTTP POST of a signed envelope. */
export interface OutgoingDelivery {
  /** The receiver URL; checked again by the URL policy before sending. */
  url: string;
  /** The serialised envelope, sent exactly as given (the signature covers these bytes). */
  body: string;
  /**
   * Extra headers: signature, webhook id, event type. `content-type` and
   * `user-agent` are set by the transport; do not pass `host` or `content-length`.
   */
  headers: Record<string, string>;
}

/** Sends deliveries; one attempt per call. */
export interface Transport {
  /**
   * Makes one attempt. Never throws for a failed delivery: every network or HTTP
   * failure comes back as an outcome with its `errorKind`. Only misuse (bad
   * header values, a closed transport) throws.
   *
   * @param options.signal - aborts the attempt early (reported as `timeout`)
   */
  send(delivery: OutgoingDelivery, options?: { signal?: AbortSignal }): Promise<AttemptOutcome>;
  /** Closes the keep-alive connections after in-flight attempts finish. */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 4096;
const DEFAULT_CONNECTIONS = 64;
const POOL_IDLE_MS = 60_000;
const DEFAULT_USER_AGENT = `@svc/webhooks/${version} (+https://github.com/svc/webhooks)`;
const LOCATION_MAX_CHARS = 300;
const ABORTED_MESSAGE = 'The attempt was aborted by the caller before a response';

interface AttemptClock {
  startedAt: number;
}

function elapsed(clock: AttemptClock): number {
  return Math.max(0, Math.round(performance.now() - clock.startedAt));
}

function failure(
  clock: AttemptClock,
  errorKind: AttemptErrorKind,
  errorMessage: string,
  statusCode: number | null = null,
): AttemptOutcome {
  return {
    ok: false,
    statusCode,
    errorKind,
    errorMessage,
    durationMs: elapsed(clock),
    responseExcerpt: null,
    retryAfterMs: null,
  };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function statusMessage(statusCode: number, headers: Dispatcher.ResponseData['headers']): string {
  if (statusCode >= 300 && statusCode < 400) {
    const location = firstHeader(headers.location);
    const target = location ? ` to ${location.slice(0, LOCATION_MAX_CHARS)}` : '';
    return `Receiver answered HTTP ${statusCode}, a redirect${target}; redirects are not followed`;
  }
  return `Receiver answered HTTP ${statusCode}`;
}

/** The outcome of a response that arrived; only a 2xx is a success. */
function responseOutcome(
  clock: AttemptClock,
  response: Pick<Dispatcher.ResponseData, 'statusCode' | 'headers'>,
  responseExcerpt: string | null,
): AttemptOutcome {
  const { statusCode, headers } = response;
  const ok = statusCode >= 200 && statusCode < 300;
  const honoursRetryAfter = statusCode === 429 || statusCode === 503;
  return {
    ok,
    statusCode,
    errorKind: ok ? null : 'http_status',
    errorMessage: ok ? null : statusMessage(statusCode, headers),
    durationMs: elapsed(clock),
    responseExcerpt,
    retryAfterMs: honoursRetryAfter ? parseRetryAfter(headers['retry-after'], Date.now()) : null,
  };
}

/** A URL-policy refusal at send time; the request is never made. */
function policyOutcome(clock: AttemptClock, error: unknown): AttemptOutcome {
  if (!(error instanceof InvalidWebhookUrlError)) {
    return failure(clock, 'dns', `The receiver URL could not be checked: ${String(error)}`);
  }
  if (error.reason === 'private_address') return failure(clock, 'private_address', error.message);
  if (error.reason === 'unresolvable_host') return failure(clock, 'dns', error.message);
  // invalid_url / not_https: the URL was accepted once but the policy now refuses it (e.g. allowHttp turned off).
  return failure(clock, 'connect', `Not sent: ${error.message}`);
}

const requestPaths = new WeakMap<CheckedUrl, string>();

/** Path and query of the checked URL, computed once per check result. */
function requestPath(checked: CheckedUrl): string {
  let path = requestPaths.get(checked);
  if (path === undefined) {
    path = `${checked.url.pathname}${checked.url.search}`;
    requestPaths.set(checked, path);
  }
  return path;
}

function requestHeaders(delivery: OutgoingDelivery, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in delivery.headers) headers[name.toLowerCase()] = delivery.headers[name] as string;
  headers['content-type'] = 'application/json';
  headers['user-agent'] = userAgent;
  return headers;
}

/**
 * The deadline of one attempt: fires after `timeoutMs` or when the caller's
 * signal aborts, whichever comes first. It hands undici an EventEmitter rather
 * than an AbortSignal (undici accepts both): EventTarget listeners cost several
 * microseconds each on Node 20, which adds up at thousands of attempts a second.
 */
class AttemptDeadline extends EventEmitter {
  #state: 'running' | 'timed_out' | 'aborted' = 'running';
  readonly #timer: NodeJS.Timeout;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort = () => this.#fire('aborted');

  constructor(timeoutMs: number, callerSignal: AbortSignal | undefined) {
    super();
    this.#timer = setTimeout(() => this.#fire('timed_out'), timeoutMs);
    this.#callerSignal = callerSignal;
    if (!callerSignal) return;
    if (callerSignal.aborted) {
      this.#fire('aborted');
      return;
    }
    // A worker naturally shares one stop signal across all its concurrent attempts, one listener each;
    // lift Node's leak warning (10 listeners) for it. Each listener is removed when its attempt ends.
    setMaxListeners(0, callerSignal);
    callerSignal.addEventListener('abort', this.#onCallerAbort, { once: true });
  }

  get aborted(): boolean {
    return this.#state !== 'running';
  }

  get timedOut(): boolean {
    return this.#state === 'timed_out';
  }

  /** Rejects as soon as the deadline fires; `promise` keeps running unobserved. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.aborted) return Promise.reject(new Error('attempt aborted'));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new Error('attempt aborted'));
      this.once('abort', onAbort);
      promise.then(resolve, reject).finally(() => this.off('abort', onAbort));
    });
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  }

  #fire(state: 'timed_out' | 'aborted'): void {
    if (this.#state !== 'running') return;
    this.#state = state;
    this.emit('abort');
  }
}

/**
 * Creates the HTTP transport of the worker and of `sendTest`.
 *
 * Each `send` re-checks the URL with a fresh resolution, then POSTs over a
 * keep-alive connection pinned to the checked addresses. Redirects are never
 * followed, the response body is read up to `maxResponseBytes`, and the whole
 * attempt is bounded by `timeoutMs`.
 *
 * @example
 * ```ts
 * const transport = createTransport({ urlPolicy: createUrlPolicy() });
 * const outcome = await transport.send({ url, body, headers: { 'x-service-signature': header } });
 * await transport.close();
 * ```
 */
export function createTransport(options: TransportOptions & { urlPolicy: UrlPolicy }): Transport {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const pools = createPinnedPools({
    connections: options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS,
    timeoutMs,
    tls: options.tls,
    idleMs: POOL_IDLE_MS,
  });

  const post = (checked: CheckedUrl, delivery: OutgoingDelivery, signal: AttemptDeadline) =>
    pools.use(checked, async (pool) => {
      const response = await pool.request({
        method: 'POST',
        path: requestPath(checked),
        headers: requestHeaders(delivery, userAgent),
        body: delivery.body,
        signal,
      });
      const excerpt = await readExcerpt(response.body, maxResponseBytes);
      return { response, excerpt };
    });

  const attempt = async (delivery: OutgoingDelivery, deadline: AttemptDeadline) => {
    const clock: AttemptClock = { startedAt: performance.now() };
    let checked: CheckedUrl;
    try {
      checked =
        options.urlPolicy.known(delivery.url) ?? (await deadline.race(options.urlPolicy.check(delivery.url)));
    } catch (error) {
      if (deadline.timedOut) {
        return failure(
          clock,
          'dns',
          `The receiver host did not resolve within the ${timeoutMs} ms attempt budget`,
        );
      }
      if (deadline.aborted) return failure(clock, 'timeout', ABORTED_MESSAGE);
      return policyOutcome(clock, error);
    }
    try {
      const { response, excerpt } = await post(checked, delivery, deadline);
      return responseOutcome(clock, response, excerpt);
    } catch (error) {
      if (deadline.timedOut) return failure(clock, 'timeout', `No response within ${timeoutMs} ms`);
      if (deadline.aborted) return failure(clock, 'timeout', ABORTED_MESSAGE);
      if (isInvalidArgument(error)) throw error;
      const { kind, message } = classifyRequestError(error);
      return failure(clock, kind, message);
    }
  };

  let closed = false;
  return {
    async send(delivery, sendOptions) {
      if (closed) throw new Error('The transport is closed; create a new one to send again.');
      const deadline = new AttemptDeadline(timeoutMs, sendOptions?.signal);
      try {
        return await attempt(delivery, deadline);
      } finally {
        deadline.dispose();
      }
    },
    close() {
      closed = true;
      return pools.close();
    },
  };
}
