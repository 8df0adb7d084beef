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
   * Time budget of the TCP and TLS connect, in ms, inside `timeoutMs`: a receiver
   * that does not even accept the connection fails fast.
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
