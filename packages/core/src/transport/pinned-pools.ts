import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Pool } from 'undici';
import { WebhookError } from '../errors';
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
 * Pools that stay idle are closed by a sweep, so a service with many tenants
 * does not keep a pool per receiver forever.
 */

/** Options of {@link createPinnedPools}. */
export interface PinnedPoolsOptions {
  /** Sockets per pool (per receiver origin). */
  connections: number;
  /** Connect, headers and body timeouts of each pool, in ms (a backstop; the transport also aborts). */
  timeoutMs: number;
  /** Extra TLS settings, e.g. a test CA. */
  tls?: { ca?: string | Buffer | Array<string | Buffer>; rejectUnauthorized?: boolean };
  /** A pool unused for this long (ms) with nothing in flight is closed. */
  idleMs: number;
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
  /** Number of live pools (for tests and metrics). */
  readonly size: number;
  /** Closes every pool; in-flight requests finish first. */
  close(): Promise<void>;
}

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
  const createPool = (checked: CheckedUrl) =>
    new Pool(checked.url.origin, {
      connections: options.connections,
      pipelining: 1,
      autoSelectFamily: true,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { ...options.tls, lookup: pinnedLookup(checked.addresses), timeout: options.timeoutMs },
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
    if (current) retire(current.pool);
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
  const sweeper = setInterval(sweep, options.idleMs);
  sweeper.unref();

  return {
    acquire(checked) {
      if (closed) throw new WebhookError('transport_closed', TRANSPORT_CLOSED_MESSAGE);
      const entry = entryFor(checked);
      entry.inFlight += 1;
      entry.lastUsedAt = Date.now();
      return entry;
    },
    release(lease) {
      const entry = lease as PoolEntry;
      entry.inFlight -= 1;
      entry.lastUsedAt = Date.now();
    },
    get size() {
      return entries.size;
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
