import { Resolver } from 'node:dns/promises';
import { performance } from 'node:perf_hooks';
import { InvalidOptionError } from '../errors';

/*
 * The built-in resolver: c-ares (`dns.promises.Resolver`), not `dns.lookup`.
 *
 * `dns.lookup` is getaddrinfo on libuv's thread pool: four threads by default,
 * shared with file I/O and crypto, and a lookup that times out keeps its
 * thread until the system gives up. One tenant's dead DNS zone could so stall
 * every tenant's lookups. c-ares runs on the event loop with plain UDP
 * sockets: a slow name costs nothing but its own wait.
 *
 * Lookups share one Resolver (a c-ares channel: making one reads the system
 * configuration and costs about 0.1 ms, its UDP socket is reused by
 * concurrent queries). But `Resolver#cancel()` cancels everything a channel
 * has in flight, so one lookup's timeout must not cancel the channel under
 * the others: a lookup that stops waiting (its timeout, or the short wait for
 * its second family) retires the channel instead. Later lookups get a new
 * one, and the retired channel is cancelled as soon as no other lookup is
 * using it (each of those ends by its own timeout at the latest), so a query
 * nobody waits for is not left to c-ares's own retries (up to about 25 s).
 *
 * What c-ares does not do, unlike getaddrinfo: read `/etc/hosts`, apply the
 * resolv.conf search list to a name, or consult nsswitch (mDNS, LDAP...). The
 * names webhooks go to are public DNS names, so none of that is wanted;
 * `localhost` names are answered here without a query (RFC 6761), for
 * development with `allowPrivateNetworks`.
 */

/** One address a hostname resolved to. */
export interface ResolvedAddress {
  /** Canonical IPv4 dotted quad or IPv6 text form (no brackets). */
  address: string;
  family: 4 | 6;
  /**
   * How long this answer may be reused, in seconds: the DNS record's TTL. The
   * URL policy caches a checked answer only when every address carries one
   * (clamped to 1 s – 5 min); without it, every check resolves afresh.
   * @default undefined (the answer is not cached)
   */
  ttl?: number;
}

/**
 * Resolves a hostname to every A and AAAA address it has, like
 * `dns.promises.lookup(hostname, { all: true })`. Rejects (or answers an empty
 * list) when the name does not resolve.
 */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Options of {@link createDnsResolver}. */
export interface DnsResolverOptions {
  /** Servers as `Resolver#setServers` takes them (`'1.1.1.1'`, `'127.0.0.1:5353'`); the system's when absent. */
  servers?: readonly string[] | undefined;
  /** A lookup still unanswered after this many ms is cancelled and fails with `ETIMEOUT`. */
  timeoutMs: number;
}

/**
 * Once one family has answered with addresses, how long the other one may still
 * take, in ms. A server that never answers AAAA (some middleboxes drop it) then
 * costs this, not the whole timeout; what arrives later is not waited for.
 */
const OTHER_FAMILY_WAIT_MS = 200;

/**
 * How long c-ares waits for an answer before it sends the query again, in ms
 * (doubled at each retry; the lookup's own timeout ends it all). Its default,
 * 2 s, is what a lost UDP datagram costs, and a cold worker's first lookups
 * lost some: a few hundred names looked up at once sent twice as many queries
 * in one burst, more than a socket's default receive buffer held, and the ones
 * dropped were asked again 2 s later. Lookups now go in turns (below), and a
 * datagram lost anyway costs 1 s. Not less: c-ares ignores the answer to a
 * query it has sent again, so a server slower than this pays one more wait.
 */
const RETRANSMIT_MS = 1000;
/** Sends of one query, the first included: retries at 1 s and 3 s, within the default lookup timeout. */
const QUERY_TRIES = 3;

/**
 * Lookups that query at once, at most; the others wait their turn, in order.
 * 64 lookups send 128 queries (A and AAAA), half of the 256 datagrams a
 * default receive buffer held on the loopback before it dropped the rest: a
 * cold worker's first lookups of a few hundred names go out in waves of a
 * round trip each instead of one burst of which a third was lost and asked
 * again. The wait counts against the lookup's own timeout.
 */
export const MAX_LOOKUPS_IN_FLIGHT = 64;

/** Seconds the RFC 6761 localhost answer may be reused: it never changes. */
const LOCALHOST_TTL = 300;

/** `localhost` and its subdomains (RFC 6761), with or without the root dot. */
export function isLocalhostName(hostname: string): boolean {
  const name = (hostname.endsWith('.') ? hostname.slice(0, -1) : hostname).toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

function dnsError(code: string, hostname: string, detail: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${detail} (${code} ${hostname})`);
  error.code = code;
  return error;
}

function validatedServers(servers: readonly string[]): string[] {
  const list = [...servers];
  if (list.length === 0) {
    throw new InvalidOptionError(
      '@svc/webhooks-core',
      'urlPolicy.dnsServers',
      'urlPolicy.dnsServers is empty; name at least one server, or leave it out to use the system resolver configuration.',
    );
  }
  try {
    new Resolver().setServers(list);
  } catch (error) {
    throw new InvalidOptionError(
      '@svc/webhooks-core',
      'urlPolicy.dnsServers',
      `urlPolicy.dnsServers must be IP addresses with an optional port ('1.1.1.1', '127.0.0.1:5353', '[::1]:53'): ${(error as Error).message}`,
    );
  }
  return list;
}

/** What one family's query ended with. */
type FamilyResult =
  | { state: 'pending' }
  | { state: 'answered'; addresses: ResolvedAddress[] }
  | { state: 'failed'; error: NodeJS.ErrnoException };

/**
 * The failure to report when neither family answered an address. A name that
 * does not exist (NXDOMAIN) says the most; then a failure that may pass
 * (timeout, SERVFAIL, no server reached), since the other family's "no
 * records" answer means little without it; "no records" only when both said so.
 */
export function combinedFailure(
  a: NodeJS.ErrnoException,
  aaaa: NodeJS.ErrnoException,
): NodeJS.ErrnoException {
  if (a.code === 'ENOTFOUND') return a;
  if (aaaa.code === 'ENOTFOUND') return aaaa;
  if (a.code !== 'ENODATA') return a;
  return aaaa;
}

/** A c-ares channel shared by lookups, and how many of them are using it. */
interface Channel {
  resolver: Resolver;
  users: number;
  /** A lookup stopped waiting on it: no new lookup may use it, and it is cancelled once unused. */
  retired: boolean;
}

/** Hands out the shared channel; see the block comment at the top of this file. */
function createChannels(servers: string[] | undefined) {
  let current: Channel | null = null;
  return {
    take(): Channel {
      if (current === null || current.retired) {
        const resolver = new Resolver({ timeout: RETRANSMIT_MS, tries: QUERY_TRIES });
        if (servers) resolver.setServers(servers);
        current = { resolver, users: 0, retired: false };
      }
      current.users += 1;
      return current;
    },
    /** Ends a lookup's use; `abandoned`: it stopped waiting while a query was still out. */
    give(channel: Channel, abandoned: boolean): void {
      channel.users -= 1;
      if (abandoned) channel.retired = true;
      if (channel.retired && channel.users === 0) channel.resolver.cancel();
    },
  };
}

type Channels = ReturnType<typeof createChannels>;

/**
 * Queries A and AAAA in parallel and settles after `leftMs`, whatever the queries
 * still do; `timeoutMs` is the whole lookup's, its turn's wait included, as the error says.
 */
function queryBoth(
  hostname: string,
  channels: Channels,
  leftMs: number,
  timeoutMs: number,
): Promise<ResolvedAddress[]> {
  const channel = channels.take();
  return new Promise((resolve, reject) => {
    const results: [FamilyResult, FamilyResult] = [{ state: 'pending' }, { state: 'pending' }];
    let settled = false;
    let otherFamilyTimer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(otherFamilyTimer);
      const [a, aaaa] = results;
      channels.give(channel, a.state === 'pending' || aaaa.state === 'pending');
      const addresses = [a, aaaa].flatMap((result) => (result.state === 'answered' ? result.addresses : []));
      if (addresses.length > 0) resolve(addresses);
      else if (a.state === 'failed' && aaaa.state === 'failed') reject(combinedFailure(a.error, aaaa.error));
      else if (a.state === 'pending' || aaaa.state === 'pending') {
        reject(dnsError('ETIMEOUT', hostname, `No DNS answer within ${timeoutMs} ms`));
      } else reject(dnsError('ENODATA', hostname, 'No A or AAAA record'));
    };
    const deadline = setTimeout(finish, leftMs);
    const settle = (index: 0 | 1, result: FamilyResult): void => {
      if (settled) return;
      results[index] = result;
      const other = results[1 - index] as FamilyResult;
      if (other.state !== 'pending') finish();
      else if (result.state === 'answered') otherFamilyTimer ??= setTimeout(finish, OTHER_FAMILY_WAIT_MS);
    };
    const { resolver } = channel;
    resolver.resolve4(hostname, { ttl: true }).then(
      (records) => settle(0, { state: 'answered', addresses: records.map((r) => ({ ...r, family: 4 })) }),
      (error: NodeJS.ErrnoException) => settle(0, { state: 'failed', error }),
    );
    resolver.resolve6(hostname, { ttl: true }).then(
      (records) => settle(1, { state: 'answered', addresses: records.map((r) => ({ ...r, family: 6 })) }),
      (error: NodeJS.ErrnoException) => settle(1, { state: 'failed', error }),
    );
  });
}

/** Runs lookups at most `limit` at once, in the order asked; see {@link MAX_LOOKUPS_IN_FLIGHT}. */
function createLookupTurns(limit: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  const ended = (): void => {
    running -= 1;
    waiting.shift()?.();
  };
  return <T>(start: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const go = () => {
        running += 1;
        const lookup = start();
        lookup.then(ended, ended);
        lookup.then(resolve, reject);
      };
      if (running < limit) go();
      else waiting.push(go);
    });
}

/**
 * Creates the default resolver of the URL policy: c-ares (never the libuv
 * thread pool), A and AAAA queried in parallel, at most
 * {@link MAX_LOOKUPS_IN_FLIGHT} lookups at once, each ended at
 * `timeoutMs` (its queries cancelled, without touching other lookups'),
 * every address with its record's TTL. IPv4 addresses come
 * first. `localhost` names answer 127.0.0.1 and ::1 without a query.
 *
 * @throws {@link InvalidOptionError} when `servers` is empty or holds something other than addresses.
 * @example
 * ```ts
 * const resolve = createDnsResolver({ servers: ['127.0.0.1:5353'], timeoutMs: 5000 });
 * await resolve('hooks.example.com'); // [{ address: '93.184.216.34', family: 4, ttl: 300 }]
 * ```
 */
export function createDnsResolver(options: DnsResolverOptions): HostResolver {
  const channels = createChannels(options.servers ? validatedServers(options.servers) : undefined);
  const inTurn = createLookupTurns(MAX_LOOKUPS_IN_FLIGHT);
  const { timeoutMs } = options;
  return (hostname) => {
    if (isLocalhostName(hostname)) {
      return Promise.resolve([
        { address: '127.0.0.1', family: 4, ttl: LOCALHOST_TTL },
        { address: '::1', family: 6, ttl: LOCALHOST_TTL },
      ]);
    }
    const askedAt = performance.now();
    return inTurn(() => {
      const leftMs = timeoutMs - (performance.now() - askedAt);
      return leftMs > 0
        ? queryBoth(hostname, channels, leftMs, timeoutMs)
        : Promise.reject(dnsError('ETIMEOUT', hostname, `No DNS answer within ${timeoutMs} ms`));
    });
  };
}
