import { isIP, type LookupFunction } from 'node:net';
import { type ConnectionOptions, type SecureContext, type TLSSocket, connect as tlsConnect } from 'node:tls';
import { buildConnector, errors } from 'undici';
import { setNewest } from '../bounded-map';
import { startLagTolerantTimer } from '../deadline';

/*
 * The connector of a pool: undici's for `http:` origins, this one for
 * `https:`. It makes the same TLS connection undici's would (SNI from the host,
 * ALPN http/1.1, TCP keep-alive and no-delay, a connect timeout failing with
 * undici's ConnectTimeoutError) and resumes the pool's TLS session the same
 * way. What it does not do is pay for the session on every connect, which
 * undici's connector does twice over:
 *
 * - `tls.connect({ session })` parses the session twice (the socket's set-up
 *   and tls.connect each call setSession). A session holds the receiver's
 *   certificate, so each parse is about 0.2 ms of CPU. Here the socket is made
 *   without it and given it once.
 * - A socket serialises each session ticket the receiver sends (two per TLS 1.3
 *   handshake) once anyone listens for its `session` event, and undici listens
 *   on every socket. Here a socket reports its session only while the pool
 *   needs one: before it has any, and after a connect offered the cached one
 *   and the receiver declined it (ticket expired or its keys rotated).
 *
 * The sessions are kept by origin in a cache the pools of a transport share
 * ({@link TlsSessionCache}), so a pool that replaces another (the name's
 * addresses changed, an idle pool was swept or evicted) resumes at once instead
 * of starting cold. Resuming with another address of the same name is safe: only
 * the server holding the ticket's keys can complete the handshake.
 *
 * On the isolation benchmark's shared origin, a cold pool opening 256
 * connections spent 50–90 ms of its 330–470 ms of CPU in setSession alone.
 */

type Connector = buildConnector.connector;

/**
 * The latest TLS session of each origin (`host:port`), the least recently
 * stored dropped past `capacity`. A session is a kilobyte or two.
 */
export class TlsSessionCache {
  readonly #sessions = new Map<string, Buffer>();

  constructor(readonly capacity: number) {}

  get(origin: string): Buffer | undefined {
    return this.#sessions.get(origin);
  }

  set(origin: string, session: Buffer): void {
    setNewest(this.#sessions, origin, session, this.capacity);
  }
}

/** The cache key of a URL's host and port: `hooks.example.com:443`, `::1:8443` (no brackets). */
export function sessionOrigin(hostname: string, port: string | number): string {
  const name = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return `${name}:${Number(port) || 443}`;
}

/** Options of {@link buildPoolConnector}: TLS settings, the pinned lookup and the connect timeout. */
export interface PoolConnectorOptions {
  /** Answers the addresses the URL policy checked (pinned-pools.ts). */
  lookup: LookupFunction;
  /** Try each address family in turn (happy eyeballs). */
  autoSelectFamily: boolean;
  /** The trusted CAs, when not the default ones. */
  secureContext?: SecureContext;
  rejectUnauthorized?: boolean;
  /** TCP and TLS connect timeout, in ms, from the call to `tls.connect`. */
  timeout: number;
  /** Most event-loop lag given back to the connect timeout, in ms (deadline.ts); 0 by default. */
  maxLagCreditMs?: number;
  /** Where sessions are kept; without one, the connector keeps its own, for its connections only. */
  sessions?: TlsSessionCache;
}

/** What tls.connect takes and its types leave out (they are passed on to the TCP socket). */
type ConnectOptions = ConnectionOptions & {
  highWaterMark: number;
  autoSelectFamily: boolean;
  localAddress?: string;
};

/** Documented in Node's TLS API, missing from its types. */
type ResumableSocket = TLSSocket & { setSession(session: Buffer): void };

/** As undici's connector: a socket idle this long sends TCP keep-alive probes. */
const KEEP_ALIVE_INITIAL_DELAY_MS = 60_000;

/**
 * Builds the connector for one pool (see the comment at the top of this file).
 */
export function buildPoolConnector(options: PoolConnectorOptions): Connector {
  const { timeout, maxLagCreditMs = 0, sessions = new TlsSessionCache(1), ...tlsOptions } = options;
  const plain = buildConnector({ ...tlsOptions, timeout });
  /** Set when a connect offered the cached session and the receiver made a full handshake instead. */
  let declined = false;

  return (target, callback) => {
    const { hostname, protocol, port, localAddress } = target;
    if (protocol !== 'https:') return plain(target, callback);
    // No server name for an IP address, as RFC 6066 says (undici's `hostname` has no brackets).
    const servername = target.servername || (isIP(hostname) ? undefined : hostname);
    const origin = sessionOrigin(hostname, port);
    const offered = declined ? undefined : sessions.get(origin);
    const connectOptions: ConnectOptions = {
      ...tlsOptions,
      highWaterMark: 16_384,
      servername,
      localAddress: localAddress ?? undefined,
      ALPNProtocols: ['http/1.1'],
      host: hostname,
      port: Number(port) || 443,
    };
    const socket = tlsConnect(connectOptions) as ResumableSocket;
    if (offered) socket.setSession(offered);
    const keep = (session: Buffer) => {
      sessions.set(origin, session);
      declined = false;
    };
    if (!offered) socket.on('session', keep);
    socket.setKeepAlive(true, KEEP_ALIVE_INITIAL_DELAY_MS).setNoDelay(true);

    let done = false;
    const finish = (error: Error | null) => {
      if (done) return;
      done = true;
      timer.stop();
      socket.off('close', onClose);
      if (error) callback(error, null);
      else callback(null, socket);
    };
    // Started here, when the connect really starts: a wait for the budget, the gate or the pacer came before.
    // A handshake that completed while our event loop was blocked is not timed out for it.
    const timer = startLagTolerantTimer(
      timeout,
      () => {
        socket.destroy(
          new errors.ConnectTimeoutError(
            `Connect Timeout Error (attempted address: ${hostname}:${port}, timeout: ${timeout}ms)`,
          ),
        );
      },
      maxLagCreditMs,
    );
    const onClose = () => finish(new errors.SocketError('closed before the TLS handshake completed'));
    socket
      .once('secureConnect', () => {
        if (offered && !socket.isSessionReused()) {
          declined = true;
          // A TLS 1.2 session is complete with the handshake; TLS 1.3 tickets come after it.
          const session = socket.getProtocol() === 'TLSv1.2' ? socket.getSession() : undefined;
          if (session) keep(session);
          else socket.on('session', keep);
        }
        finish(null);
      })
      .on('error', (error) => finish(error))
      .once('close', onClose);
    return socket;
  };
}
