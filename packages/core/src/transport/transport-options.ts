/** HTTP delivery settings: the `transport` option of {@link createWebhookService}. */
export interface TransportOptions {
  /**
   * The receiver's time to answer, in ms: from the moment the request is handed
   * to its connection (written to the socket) to the response headers and the
   * bounded body read. Also bounds the send-time DNS check on its own.
   *
   * Not counted: time the request waits inside this process before it is handed
   * over (a free pooled connection, the socket budget, connect pacing, the TLS
   * resumption gate: see `localWaitMs`), the connect itself (`connectTimeoutMs`),
   * and event-loop lag: a deadline that fires late because the process was busy
   * gives the lateness back (up to `localWaitMs`) and reads what arrived first.
   * Ends as `timeout`.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Longest a request may wait inside this process before it is handed to a
   * connection, in ms: for a free keep-alive connection of its pool, and for the
   * connects behind it (socket budget, TLS resumption gate, connect pacer, the
   * connect itself). Past it the attempt ends as `sender_busy`: nothing was sent,
   * and it is not counted as a failure of the receiver. Also the most event-loop
   * lag given back to one attempt's receiver and connect deadlines. Generous, so
   * that it only ends attempts of a process that is stuck.
   * @default 30000
   */
  localWaitMs?: number;
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
   * Time budget of the TCP and TLS connect, in ms, from when the connect really
   * starts (after any wait for the socket budget, the resumption gate or the
   * connect pacer), apart from `timeoutMs` and at most it: a receiver that does
   * not even accept the connection fails fast (`connect` or `timeout`).
   * Event-loop lag is given back as for `timeoutMs`.
   * @default 5000
   */
  connectTimeoutMs?: number;
  /**
   * Keep-alive sockets per receiver origin. An agency whose receiver hangs holds
   * only its window of them (one or two), so healthy agencies sharing the origin
   * keep theirs; fewer sockets than the worker's slots spare a TLS handshake each.
   * Raise it for a shared receiver far away.
   * @default 256
   */
  connectionsPerOrigin?: number;
  /**
   * Most keep-alive pools (one per receiver origin) open at once; past it the
   * least recently used pool is closed.
   * @default 1024
   */
  maxPools?: number;
  /**
   * Most sockets open at once, across every origin and test send. At the cap a
   * new connection first closes idle pools, then waits for a socket to close.
   * @default 2048
   */
  maxSockets?: number;
  /**
   * Idle keep-alive sockets are closed after this long (ms), whatever the
   * receiver's keep-alive hint says, and a pool unused this long is closed.
   * @default 30000
   */
  idleMs?: number;
}
