import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { createSecureContext } from 'node:tls';
import { Client, Pool } from 'undici';
import { WebhookError } from '../errors';
import { ConnectPacer } from './connect-pacer';
import { holdForFirstSession } from './resumption-gate';
import { SocketBudget } from './socket-budget';
import { buildPoolConnector, sessionOrigin, TlsSessionCache } from './tls-connector';
import type { CheckedUrl, ResolvedAddress } from './url-policy';

/** What a send after `close()` is told: a host wiring mistake, so it names the package. */
export const TRANSPORT_CLOSED_MESSAGE =
  '@svc/webhooks-core: the transport is closed (service.close() was called); create a new service to send again.';

/*
 * Connection pinning: why one pool per (origin, checked address set).
 *
 * The URL policy resolves the hostname and checks every address before a
 * send (or reuses a judged answer within its TTL: dns-cache.ts). If the connection then resolved the name again, a DNS server under an
 * attacker's control could answer a public address to the check and 127.0.0.1
 * to the connect (DNS rebinding). So the socket never resolves anything: each
 * pool is built with a `connect.lookup` that answers only the addresses the
 * policy checked, and IP-literal hosts need no lookup at all.
 *
 * The pool keeps the real origin (`https://hooks.example.com`), which means the
 * Host header, the TLS SNI name and the certificate check all use the hostname,
 * exactly as for an ordinary request. Connecting to the IP with `servername`
 * patched in was the alternative; it would key pools by IP, mix several
 * tenants' hostnames on one connection (shared hosting, CDNs) and needs the SNI
 * and Host overrides kept in step by hand.
 *
 * Keep-alive is the subtle part. A pool is keyed by origin, and its idle
 * sockets stay connected to whatever address they were opened to. If the
 * hostname later resolves to other addresses, reusing those sockets would send
 * to an address that this send's check never looked at. So each pool remembers
 * its address set: when a fresh check returns a different set, a new pool is
 * made for it and the old one is closed (its in-flight requests finish, its
 * sockets are not reused). The set is compared sorted, so round-robin DNS that
 * only reorders the answer keeps its connections. Addresses are never
 * re-judged: whether an address is public depends on the address alone.
 *
 * The lookup answers every checked address, so Node's happy-eyeballs connect
 * (autoSelectFamily) can fall back from an unreachable AAAA to the A record.
 *
 * Bounds, because tenants choose the origins: pools that stay idle are closed
 * by a sweep, the number of live pools is capped (the least recently used goes
 * first), every socket of every pool counts against one budget
 * (socket-budget.ts), and a server's keep-alive hint cannot hold an idle socket
 * open past `idleMs`. Test sends use a one-shot connection that is closed after
 * its answer, so a tenant trying origins leaves nothing behind.
 *
 * A herd of connects to a pool that has no TLS session yet makes one full
 * handshake, not one per connection: the others wait for its session and
 * resume it (resumption-gate.ts). Resuming costs a connect little
 * CPU of its own (tls-connector.ts), and sessions outlive pools: a pool that
 * replaces another, or comes back after an idle one was swept, resumes its
 * origin's last session from its first connect and holds nothing. However many
 * connects a herd asks for, they start a few per turn of the event loop
 * (connect-pacer.ts), so starting them holds the loop a few milliseconds at a time.
 */

/** Options of {@link createPinnedPools}. */
export interface PinnedPoolsOptions {
  /** Sockets per pool (per receiver origin). */
  connections: number;
  /** The receiver's budget, in ms (the transport's own timer enforces it; see `createPool`). */
  timeoutMs: number;
  /** The most event-loop lag the transport gives back to a receiver's or a connect's deadline, in ms. */
  localWaitMs: number;
  /** TCP and TLS connect timeout, in ms. */
  connectTimeoutMs: number;
  /** Extra TLS settings, e.g. a test CA. */
  tls?: { ca?: string | Buffer | Array<string | Buffer>; rejectUnauthorized?: boolean };
  /** A pool unused for this long (ms) with nothing in flight is closed; no idle socket lives longer. */
  idleMs: number;
  /** Most live pools; past it the least recently used is closed. */
  maxPools: number;
  /** Most open sockets across every pool and one-shot connection. */
  maxSockets: number;
}

/** Live resources of a transport, for metrics and tests. */
export interface TransportStats {
  /** Keep-alive pools open now (one per receiver origin and checked address set). */
  pools: number;
  /** Sockets open now, connecting ones included, across pools and one-shot connections. */
  sockets: number;
  /** The most sockets open at once so far. */
  peakSockets: number;
  /** The cap on pools (`transport.maxPools`). */
  maxPools: number;
  /** The cap on sockets (`transport.maxSockets`). */
  maxSockets: number;
}

/** A pool taken for one request; hand it back with {@link PinnedPools.release} when the request ends. */
export interface PoolLease {
  readonly pool: Pool;
}

/** Keep-alive pools whose sockets connect only to checked addresses. */
export interface PinnedPools {
  /**
   * The pool for `checked`, created or replaced as needed. While leased it is
   * never closed by the idle sweep.
   */
  acquire(checked: CheckedUrl): PoolLease;
  /** Ends a lease taken with {@link acquire}. */
  release(lease: PoolLease): void;
  /**
   * A connection of its own for one request, pinned like the pools' and within
   * the socket budget; the caller destroys it after the answer.
   */
  oneShot(checked: CheckedUrl): Client;
  /** Number of live pools (for tests and metrics). */
  readonly size: number;
  stats(): TransportStats;
  /** Closes every pool; in-flight requests finish first. */
  close(): Promise<void>;
}

/** Origins whose latest TLS session is kept at least, whatever `maxPools` is (a session is a kilobyte or two). */
const MIN_SESSION_ORIGINS = 1024;

interface PoolEntry extends PoolLease {
  pinKey: string;
  inFlight: number;
  lastUsedAt: number;
}

/** The lookup given to the socket: answers the checked addresses, never asks DNS. */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname: string, options: LookupOptions, callback) => {
    const wanted = options.family === 6 || options.family === 'IPv6' ? 6 : options.family ? 4 : 0;
    const answers: LookupAddress[] = addresses.filter(({ family }) => wanted === 0 || family === wanted);
    const first = answers[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error('No checked address of the wanted family');
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
    } else if (options.all) {
      callback(null, answers);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

/** Whether `a` should be closed before `b`: idle before busy, then the longer unused. */
function lessUsed(a: PoolEntry, b: PoolEntry): boolean {
  const aIdle = a.inFlight === 0;
  return aIdle !== (b.inFlight === 0) ? aIdle : a.lastUsedAt < b.lastUsedAt;
}

function pinKeyOf(addresses: readonly ResolvedAddress[]): string {
  return addresses
    .map(({ address }) => address)
    .sort()
    .join(',');
}

/**
 * Creates the pool cache of the transport. See the block comment at the top of
 * this file for why pools are keyed by origin and pinned address set.
 */
export function createPinnedPools(options: PinnedPoolsOptions): PinnedPools {
  const entries = new Map<string, PoolEntry>();
  let closed = false;
  const retire = (pool: Pool) => {
    // close() lets in-flight requests finish; errors of a pool being dropped matter to no one.
    pool.close().catch(() => undefined);
  };
  /** Closes the least recently used pool, idle ones before busy ones (idle only if asked); true when one was closed. */
  const evictLeastRecent = (idleOnly: boolean): boolean => {
    let oldest: [string, PoolEntry] | undefined;
    for (const pair of entries) {
      if (idleOnly && pair[1].inFlight > 0) continue;
      if (!oldest || lessUsed(pair[1], oldest[1])) oldest = pair;
    }
    if (!oldest) return false;
    entries.delete(oldest[0]);
    retire(oldest[1].pool);
    return true;
  };
  // undici's own headers and body timeouts are only a backstop: the transport's timer (exchange.ts) ends
  // the attempt, and gives the receiver back event-loop lag, which undici's timers would charge it.
  const backstopMs = options.timeoutMs + options.localWaitMs;
  const budget = new SocketBudget(options.maxSockets, () => evictLeastRecent(true));
  // Given a `ca`, tls.connect builds a secure context per connection: the PEM parsed and a
  // certificate store made each time, about 0.4 ms of CPU per handshake. One shared context
  // holds the same trust.
  const { ca, ...tlsRest } = options.tls ?? {};
  const secureContext = ca === undefined ? undefined : createSecureContext({ ca });
  // Pools share their origins' TLS sessions, kept for more origins than there are pools (they are
  // for the pools to come); one-shot connections keep theirs to themselves.
  const sessions = new TlsSessionCache(Math.max(options.maxPools, MIN_SESSION_ORIGINS));
  // Connects of every pool and one-shot connection start a few per turn of the event loop (connect-pacer.ts).
  const pacer = new ConnectPacer();
  const connectorFor = (checked: CheckedUrl, shared?: TlsSessionCache) =>
    budget.wrap(
      pacer.wrap(
        buildPoolConnector({
          ...tlsRest,
          ...(secureContext === undefined ? {} : { secureContext }),
          lookup: pinnedLookup(checked.addresses),
          timeout: options.connectTimeoutMs,
          maxLagCreditMs: options.localWaitMs,
          autoSelectFamily: true,
          ...(shared === undefined ? {} : { sessions: shared }),
        }),
      ),
    );
  // A pool whose origin has a session (an earlier pool's) has no herd to hold: every connect resumes
  // (should the receiver have dropped the ticket's keys since, they make full handshakes, as undici would).
  // A held connect takes no place in the socket budget until it starts (resumption-gate.ts).
  const poolConnectorFor = (checked: CheckedUrl) => {
    const connect = connectorFor(checked, sessions);
    const { hostname, port } = checked.url;
    return sessions.get(sessionOrigin(hostname, port)) ? connect : holdForFirstSession(connect);
  };
  const createPool = (checked: CheckedUrl) =>
    new Pool(checked.url.origin, {
      connections: options.connections,
      pipelining: 1,
      headersTimeout: backstopMs,
      bodyTimeout: backstopMs,
      keepAliveMaxTimeout: options.idleMs,
      connect: poolConnectorFor(checked),
    });
  // A check result for an IP-literal host is reused across sends, so its origin
  // and pin key (URL getters, a sort and a join) are worth computing only once.
  const keys = new WeakMap<CheckedUrl, { origin: string; pinKey: string }>();
  const keysOf = (checked: CheckedUrl) => {
    let known = keys.get(checked);
    if (!known) {
      known = { origin: checked.url.origin, pinKey: pinKeyOf(checked.addresses) };
      keys.set(checked, known);
    }
    return known;
  };
  const entryFor = (checked: CheckedUrl): PoolEntry => {
    const { origin, pinKey } = keysOf(checked);
    const current = entries.get(origin);
    if (current && current.pinKey === pinKey) return current;
    if (current) {
      entries.delete(origin);
      retire(current.pool);
    }
    if (entries.size >= options.maxPools) evictLeastRecent(false);
    const entry: PoolEntry = { pool: createPool(checked), pinKey, inFlight: 0, lastUsedAt: Date.now() };
    entries.set(origin, entry);
    return entry;
  };
  const sweep = () => {
    const cutoff = Date.now() - options.idleMs;
    for (const [origin, entry] of entries) {
      if (entry.inFlight === 0 && entry.lastUsedAt < cutoff) {
        entries.delete(origin);
        retire(entry.pool);
      }
    }
  };
  const sweeper = setInterval(sweep, Math.max(1000, Math.floor(options.idleMs / 2)));
  sweeper.unref();
  const assertOpen = () => {
    if (closed) throw new WebhookError('transport_closed', TRANSPORT_CLOSED_MESSAGE);
  };

  return {
    acquire(checked) {
      assertOpen();
      const entry = entryFor(checked);
      entry.inFlight += 1;
      entry.lastUsedAt = Date.now();
      return entry;
    },
    release(lease) {
      const entry = lease as PoolEntry;
      entry.inFlight -= 1;
      entry.lastUsedAt = Date.now();
      // A connect waits at the socket cap: idle sockets are worth more closed.
      if (budget.pressed) evictLeastRecent(true);
    },
    oneShot(checked) {
      assertOpen();
      return new Client(checked.url.origin, {
        pipelining: 1,
        headersTimeout: backstopMs,
        bodyTimeout: backstopMs,
        connect: connectorFor(checked),
      });
    },
    get size() {
      return entries.size;
    },
    stats() {
      return {
        pools: entries.size,
        sockets: budget.live,
        peakSockets: budget.peak,
        maxPools: options.maxPools,
        maxSockets: options.maxSockets,
      };
    },
    async close() {
      closed = true;
      clearInterval(sweeper);
      const pools = [...entries.values()].map((entry) => entry.pool);
      entries.clear();
      await Promise.allSettled(pools.map((pool) => pool.close()));
    },
  };
}
