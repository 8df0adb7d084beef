import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { version } from '../../package.json';
import { withinDeadline } from '../deadline';
import type { AttemptErrorKind, AttemptOutcome } from '../delivery/attempt-outcome';
import { InvalidWebhookUrlError, WebhookError } from '../errors';
import { positiveIntegerOption } from '../validation';
import {
  classifyRequestError,
  httpStatusMessage,
  isInvalidArgument,
  rawDetail,
  tenantMessage,
} from './attempt-error';
import { type ExchangeResult, exchange } from './exchange';
import { createPinnedPools, TRANSPORT_CLOSED_MESSAGE, type TransportStats } from './pinned-pools';
import { cleanExcerpt, cleanLine } from './response-excerpt';
import { parseRetryAfter } from './retry-after';
import type { TransportOptions } from './transport-options';
import type { CheckedUrl, UrlPolicy } from './url-policy';

export type { TransportOptions } from './transport-options';

/*
 * Why undici's `request` over a keep-alive Pool and not `fetch`: fetch reaches
 * about a seventh of the request rate here, follows redirects unless told
 * not to, and offers no hook to pin the socket to an address. Pinning and pool
 * keying are explained in pinned-pools.ts.
 *
 * Timeouts measure the receiver, not our own process. Each wait has its own bound:
 * the send-time URL check (DNS) `timeoutMs`; the wait inside this process for a
 * connection (the pool's queue, the socket budget, the TLS resumption gate, the
 * connect pacer) `localWaitMs`, ending as `sender_busy`, which is no failure of the
 * receiver; the TCP and TLS connect `connectTimeoutMs` from when it really starts;
 * the response `timeoutMs` from when the request is handed to the connection
 * (exchange.ts). The receiver's timers give back event-loop lag (deadline.ts): a
 * host under CPU load that noticed an answer late does not call the receiver late.
 * The worker renews its lease while an attempt runs, so none of these bounds the lease.
 */

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
  /**
   * Send on a connection of its own, closed after the answer, instead of a
   * keep-alive pool: for test sends, whose origins may never be used again.
   */
  oneShot?: boolean | undefined;
}

/** Sends deliveries; one attempt per call. */
export interface Transport {
  /**
   * Makes one attempt. Never throws for a failed delivery: every network or HTTP
   * failure comes back as an outcome with its `errorKind`. Only misuse (bad
   * header values, a closed transport) throws.
   */
  send(delivery: OutgoingDelivery, options?: SendOptions): Promise<AttemptOutcome>;
  /** Live pools and sockets, with their caps. */
  stats(): TransportStats;
  /** Closes the keep-alive connections after in-flight attempts finish. */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_LOCAL_WAIT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 4096;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_CONNECTIONS = 256;
const DEFAULT_MAX_POOLS = 1024;
const DEFAULT_MAX_SOCKETS = 2048;
const DEFAULT_IDLE_MS = 30_000;
const DEFAULT_USER_AGENT = `@svc/webhooks/${version} (+https://github.com/svc/webhooks)`;
const LOCATION_MAX_CHARS = 300;
/** The sender stopped the attempt (shutdown, lost lease): a fixed text of ours, fit for the agency and the logs. */
const ABORTED_MESSAGE =
  'The attempt was aborted by the sender before the receiver answered (the sender stopped; not a receiver failure).';

interface AttemptClock {
  startedAt: number;
}

function elapsed(clock: AttemptClock): number {
  return Math.max(0, Math.round(performance.now() - clock.startedAt));
}

/**
 * A failed attempt without a response. `errorMessage` is what the agency sees (a
 * fixed text, never raw error text); `detail` goes only to the logs.
 */
function failure(
  clock: AttemptClock,
  errorKind: Exclude<AttemptErrorKind, 'http_status'>,
  detail: string,
  errorMessage: string = tenantMessage(errorKind),
): AttemptOutcome {
  return {
    ok: false,
    statusCode: null,
    errorKind,
    errorMessage,
    errorDetail: detail,
    durationMs: elapsed(clock),
    responseExcerpt: null,
    retryAfterMs: null,
  };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** What the agency sees for a non-2xx answer; a redirect's `Location` is receiver text, cleaned first. */
function statusMessage(statusCode: number, headers: IncomingHttpHeaders): string {
  const location = statusCode >= 300 && statusCode < 400 ? firstHeader(headers.location) : undefined;
  return httpStatusMessage(statusCode, location && cleanLine(location, LOCATION_MAX_CHARS));
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
    responseExcerpt: responseExcerpt === null ? null : cleanExcerpt(responseExcerpt),
    retryAfterMs: honoursRetryAfter ? parseRetryAfter(headers['retry-after'], Date.now()) : null,
  };
}

/**
 * A URL-policy refusal at send time; the request is never made. The policy's
 * message names the host (and a resolver's cause may hold more), so the agency
 * gets the fixed text of the kind and the logs get the rest.
 */
function policyOutcome(clock: AttemptClock, error: unknown): AttemptOutcome {
  if (!(error instanceof InvalidWebhookUrlError)) {
    return failure(clock, 'dns', `The receiver URL could not be checked: ${rawDetail(error)}`);
  }
  const detail = error.cause === undefined ? error.message : `${error.message} (${rawDetail(error.cause)})`;
  if (error.reason === 'private_address') return failure(clock, 'private_address', detail);
  if (error.reason === 'unresolvable_host') return failure(clock, 'dns', detail);
  // invalid_url / not_https: the URL was accepted once but the policy now refuses it (e.g. allowHttp
  // turned off). Those messages are fixed texts about the URL the agency typed: safe to show.
  return failure(clock, 'connect', detail, `Not sent: ${error.message}`);
}

/** The logs' account of a receiver timeout: its budget, and any lag of ours given back on top. */
function timedOutDetail(timeoutMs: number, lagCreditedMs: number): string {
  const lag =
    lagCreditedMs > 0
      ? ` (plus ${Math.round(lagCreditedMs)} ms of the sender's event-loop lag given back)`
      : '';
  return `No complete response within ${timeoutMs} ms of the request reaching the receiver's connection${lag}`;
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
 * read up to `maxResponseBytes`. Every wait of an attempt is bounded, and only
 * the receiver's own time counts against `timeoutMs` (see the comment at the top
 * of this file).
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
  const localWaitMs = positiveIntegerOption(
    'transport.localWaitMs',
    options.localWaitMs,
    DEFAULT_LOCAL_WAIT_MS,
  );
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const { urlPolicy } = options;
  const pools = createPinnedPools({
    connections: positiveIntegerOption(
      'transport.connectionsPerOrigin',
      options.connectionsPerOrigin,
      DEFAULT_CONNECTIONS,
    ),
    timeoutMs,
    localWaitMs,
    connectTimeoutMs: Math.min(
      timeoutMs,
      positiveIntegerOption(
        'transport.connectTimeoutMs',
        options.connectTimeoutMs,
        DEFAULT_CONNECT_TIMEOUT_MS,
      ),
    ),
    tls: options.tls,
    idleMs: positiveIntegerOption('transport.idleMs', options.idleMs, DEFAULT_IDLE_MS),
    maxPools: positiveIntegerOption('transport.maxPools', options.maxPools, DEFAULT_MAX_POOLS),
    maxSockets: positiveIntegerOption('transport.maxSockets', options.maxSockets, DEFAULT_MAX_SOCKETS),
  });

  /** The send-time URL check, bounded by `timeoutMs`: a checked URL, or the outcome that ends the attempt. */
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
        localWaitMs,
      );
      if (bounded.kind === 'done') return bounded.value;
      if (bounded.kind === 'aborted') return failure(clock, 'timeout', ABORTED_MESSAGE, ABORTED_MESSAGE);
      return failure(clock, 'dns', `The receiver host did not resolve within the ${timeoutMs} ms budget`);
    } catch (error) {
      return policyOutcome(clock, error);
    }
  };

  const post = async (
    checked: CheckedUrl,
    delivery: OutgoingDelivery,
    clock: AttemptClock,
    sendOptions: SendOptions | undefined,
  ): Promise<AttemptOutcome> => {
    const request = {
      method: 'POST' as const,
      path: requestPath(checked),
      headers: requestHeaders(delivery, userAgent),
      body: delivery.body,
    };
    const limits = { timeoutMs, localWaitMs, maxResponseBytes, signal: sendOptions?.signal };
    let result: ExchangeResult;
    if (sendOptions?.oneShot) {
      const client = pools.oneShot(checked);
      result = await exchange(client, request, limits);
      client.destroy().catch(() => undefined);
    } else {
      const lease = pools.acquire(checked);
      result = await exchange(lease.pool, request, limits);
      pools.release(lease);
    }
    switch (result.kind) {
      case 'response':
        return responseOutcome(clock, result.statusCode, result.headers, result.excerpt);
      case 'timed_out':
        return failure(clock, 'timeout', timedOutDetail(timeoutMs, result.lagCreditedMs));
      case 'local_wait_exceeded':
        return failure(
          clock,
          'sender_busy',
          `Not handed to a connection within transport.localWaitMs (${localWaitMs} ms): the sender's own queues (pool, socket budget, connect pacing) were full; nothing was sent`,
        );
      case 'aborted':
        return failure(clock, 'timeout', ABORTED_MESSAGE, ABORTED_MESSAGE);
      case 'failed': {
        if (isInvalidArgument(result.error)) throw result.error;
        const { kind, message, detail } = classifyRequestError(result.error);
        return failure(clock, kind, detail, message);
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
    return await post(checked, delivery, clock, sendOptions);
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
      return known ? post(known, delivery, clock, sendOptions) : checkThenPost(delivery, clock, sendOptions);
    },
    stats: () => pools.stats(),
    close() {
      closed = true;
      return pools.close();
    },
  };
}
