import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { version } from '../../package.json';
import { withinDeadline } from '../deadline';
import type { AttemptErrorKind, AttemptOutcome } from '../delivery/attempt-outcome';
import { InvalidWebhookUrlError, WebhookError } from '../errors';
import { classifyRequestError, isInvalidArgument } from './attempt-error';
import { exchange } from './exchange';
import { createPinnedPools, TRANSPORT_CLOSED_MESSAGE } from './pinned-pools';
import { parseRetryAfter } from './retry-after';
import type { CheckedUrl, UrlPolicy } from './url-policy';

/*
 * Why undici's `request` over a keep-alive Pool and not `fetch`: fetch reaches
 * about a seventh of the request rate here, follows redirects unless told
 * not to, and offers no hook to pin the socket to an address. Pinning and pool
 * keying are explained in pinned-pools.ts.
 *
 * One deadline covers the whole attempt: the send-time URL check (DNS), connect,
 * TLS, request, response headers and the bounded body read (exchange.ts), so the
 * worker's lease only has to outlast `timeoutMs`.
 */

/** HTTP delivery settings: the `transport` option of {@link createWebhookService}. */
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

/** Options of {@link Transport.send}. */
export interface SendOptions {
  /** Aborts the attempt early (reported as `timeout`). */
  signal?: AbortSignal | undefined;
  /** The agency the delivery belongs to: a DNS lookup the send-time check starts counts against its limit. */
  agencyId?: string | undefined;
}

/** Sends deliveries; one attempt per call. */
export interface Transport {
  /**
   * Makes one attempt. Never throws for a failed delivery: every network or HTTP
   * failure comes back as an outcome with its `errorKind`. Only misuse (bad
   * header values, a closed transport) throws.
   */
  send(delivery: OutgoingDelivery, options?: SendOptions): Promise<AttemptOutcome>;
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

function statusMessage(statusCode: number, headers: IncomingHttpHeaders): string {
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
  statusCode: number,
  headers: IncomingHttpHeaders,
  responseExcerpt: string | null,
): AttemptOutcome {
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
 * Creates the HTTP transport of the worker and of `sendTest`.
 *
 * Each `send` re-checks the URL (on a fresh resolution, or on a judged DNS
 * answer within its TTL), then POSTs over a keep-alive connection pinned to
 * the checked addresses. Redirects are never followed, the response body is
 * read up to `maxResponseBytes`, and the whole attempt is bounded by `timeoutMs`.
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
  const { urlPolicy } = options;
  const pools = createPinnedPools({
    connections: options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS,
    timeoutMs,
    tls: options.tls,
    idleMs: POOL_IDLE_MS,
  });

  /** The send-time URL check, within the attempt's budget: a checked URL, or the outcome that ends the attempt. */
  const checkUrl = async (
    url: string,
    clock: AttemptClock,
    sendOptions: SendOptions | undefined,
  ): Promise<CheckedUrl | AttemptOutcome> => {
    const signal = sendOptions?.signal;
    try {
      const bounded = await withinDeadline(
        urlPolicy.check(url, { agencyId: sendOptions?.agencyId }),
        timeoutMs,
        signal,
      );
      if (bounded.kind === 'done') return bounded.value;
      if (bounded.kind === 'aborted') return failure(clock, 'timeout', ABORTED_MESSAGE);
      return failure(
        clock,
        'dns',
        `The receiver host did not resolve within the ${timeoutMs} ms attempt budget`,
      );
    } catch (error) {
      return policyOutcome(clock, error);
    }
  };

  const post = async (
    checked: CheckedUrl,
    delivery: OutgoingDelivery,
    clock: AttemptClock,
    signal: AbortSignal | undefined,
  ): Promise<AttemptOutcome> => {
    const lease = pools.acquire(checked);
    const result = await exchange(
      lease.pool,
      {
        method: 'POST',
        path: requestPath(checked),
        headers: requestHeaders(delivery, userAgent),
        body: delivery.body,
      },
      // Whatever the URL check used of the budget is gone.
      { timeoutMs: Math.max(1, timeoutMs - (performance.now() - clock.startedAt)), maxResponseBytes, signal },
    );
    pools.release(lease);
    switch (result.kind) {
      case 'response':
        return responseOutcome(clock, result.statusCode, result.headers, result.excerpt);
      case 'timed_out':
        return failure(clock, 'timeout', `No response within ${timeoutMs} ms`);
      case 'aborted':
        return failure(clock, 'timeout', ABORTED_MESSAGE);
      case 'failed': {
        if (isInvalidArgument(result.error)) throw result.error;
        const { kind, message } = classifyRequestError(result.error);
        return failure(clock, kind, message);
      }
    }
  };

  const checkThenPost = async (
    delivery: OutgoingDelivery,
    clock: AttemptClock,
    sendOptions: SendOptions | undefined,
  ): Promise<AttemptOutcome> => {
    const checked = await checkUrl(delivery.url, clock, sendOptions);
    if ('ok' in checked) return checked; // refused or out of time: the outcome, nothing sent
    return await post(checked, delivery, clock, sendOptions?.signal);
  };

  let closed = false;
  return {
    // Not async: the common path hands back post()'s own promise. An async function
    // returning it would wrap it in a second one, three microtask turns per attempt.
    send(delivery, sendOptions) {
      if (closed) {
        return Promise.reject(new WebhookError('transport_closed', TRANSPORT_CLOSED_MESSAGE));
      }
      const clock: AttemptClock = { startedAt: performance.now() };
      // IP-literal hosts, and hostnames whose judged DNS answer is within its TTL,
      // need no lookup: their check result is reused as is.
      const known = urlPolicy.known(delivery.url);
      return known
        ? post(known, delivery, clock, sendOptions?.signal)
        : checkThenPost(delivery, clock, sendOptions);
    },
    close() {
      closed = true;
      return pools.close();
    },
  };
}
