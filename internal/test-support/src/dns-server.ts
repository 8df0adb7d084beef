import { createSocket, type RemoteInfo } from 'node:dgram';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  type Answer,
  AUTHORITATIVE_ANSWER,
  type DecodedPacket,
  decode,
  encode,
  RECURSION_AVAILABLE,
  RECURSION_DESIRED,
} from 'dns-packet';

/*
 * A real DNS server on the loopback for tests and benchmarks: UDP on
 * 127.0.0.1 (an ephemeral port), the DNS wire format through dns-packet, so
 * the resolver under test (c-ares via `dns.promises.Resolver#setServers`)
 * goes through its whole real path: encoding, UDP, retransmits, decoding,
 * TTLs, NXDOMAIN, NODATA and server failures.
 */

/** What a name answers. Records of the asked type are answered; none of that type is NODATA. */
export interface DnsRecords {
  /** IPv4 addresses answered to A queries. */
  a?: string[];
  /** IPv6 addresses answered to AAAA queries. */
  aaaa?: string[];
  /**
   * TTL of every record, in seconds.
   * @default 300
   */
  ttl?: number;
  /**
   * Wait this long before answering, in ms.
   * @default the server's `delayMs`
   */
  delayMs?: number;
  /** Never answer: a zone whose servers are down. */
  silent?: boolean;
  /** Answer this response code and no records instead. */
  rcode?: 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED';
}

/** One query as the server saw it; `count` is 1 for the first query of that name and type. */
export interface DnsQuery {
  /** Lower case, without the trailing dot. */
  name: string;
  /** `A`, `AAAA`, or whatever else was asked. */
  type: string;
  count: number;
}

/**
 * The records of a name (exact, or a wildcard `*.zone` matching every name below
 * `zone`), or a function of the query for answers that change, as in a DNS-rebinding test.
 */
export type DnsZoneEntry = DnsRecords | ((query: DnsQuery) => DnsRecords);

/** Options of {@link startDnsServer}. */
export interface TestDnsServerOptions {
  /** Names and their records; a name not found is answered NXDOMAIN. */
  zones?: Record<string, DnsZoneEntry>;
  /**
   * Delay of every answer that sets none itself, in ms.
   * @default 0
   */
  delayMs?: number;
}

/** A running loopback DNS server. */
export interface TestDnsServer {
  /** `127.0.0.1:PORT`, as `urlPolicy.dnsServers` and `Resolver#setServers` take it. */
  readonly address: string;
  readonly port: number;
  /** Delay of every answer that sets none itself, in ms; may be changed at any time. */
  delayMs: number;
  /** Sets (or replaces) the records of `name`: exact, or `*.zone`. */
  set(name: string, entry: DnsZoneEntry): void;
  /** Queries received since start (or `resetCounts`), of every name, of `name`, or of `name` and `type`. */
  queries(name?: string, type?: string): number;
  /** Sets every counter back to zero, `count` of {@link DnsQuery} included. */
  resetCounts(): void;
  /** Stops answering (answers still waiting on their delay are dropped) and closes the socket. */
  close(): Promise<void>;
}

const RCODES = { NXDOMAIN: 3, SERVFAIL: 2, REFUSED: 5 } as const;
const DEFAULT_TTL = 300;

function normalise(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** The entry for `name`: the exact name first, then the nearest wildcard above it. */
function entryFor(zones: Map<string, DnsZoneEntry>, name: string): DnsZoneEntry | undefined {
  const exact = zones.get(name);
  if (exact) return exact;
  const labels = name.split('.');
  for (let index = 1; index < labels.length; index++) {
    const wildcard = zones.get(`*.${labels.slice(index).join('.')}`);
    if (wildcard) return wildcard;
  }
  return undefined;
}

function answersOf(name: string, type: string, records: DnsRecords): Answer[] {
  const ttl = records.ttl ?? DEFAULT_TTL;
  if (type === 'A') return (records.a ?? []).map((data) => ({ type: 'A', name, ttl, data }));
  if (type === 'AAAA') return (records.aaaa ?? []).map((data) => ({ type: 'AAAA', name, ttl, data }));
  return [];
}

function response(query: DecodedPacket, rcode: number, answers: Answer[]): Buffer {
  const recursion = query.flag_rd ? RECURSION_DESIRED : 0;
  return encode({
    type: 'response',
    id: query.id ?? 0,
    flags: AUTHORITATIVE_ANSWER | RECURSION_AVAILABLE | recursion | rcode,
    questions: query.questions ?? [],
    answers,
  });
}

/**
 * Starts a DNS server on 127.0.0.1 (UDP, ephemeral port) answering A and AAAA
 * queries from `zones`, with TTLs, delays, silence and error codes per name,
 * and counting every query it receives.
 *
 * @example
 * ```ts
 * const dns = await startDnsServer({ zones: { '*.hooks.test': { a: ['127.0.0.1'], ttl: 60 } }, delayMs: 20 });
 * const policy = createUrlPolicy({ allowPrivateNetworks: true, dnsServers: [dns.address] });
 * await dns.close();
 * ```
 */
export async function startDnsServer(options: TestDnsServerOptions = {}): Promise<TestDnsServer> {
  const zones = new Map<string, DnsZoneEntry>();
  for (const [name, entry] of Object.entries(options.zones ?? {})) zones.set(normalise(name), entry);
  const counts = new Map<string, number>();
  const waiting = new Set<NodeJS.Timeout>();
  let total = 0;
  let closed = false;
  const socket = createSocket('udp4');

  const count = (name: string, type: string): number => {
    total += 1;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const key = `${name} ${type}`;
    const next = (counts.get(key) ?? 0) + 1;
    counts.set(key, next);
    return next;
  };

  const send = (packet: Buffer, to: RemoteInfo, delayMs: number): void => {
    if (delayMs <= 0) {
      socket.send(packet, to.port, to.address);
      return;
    }
    const timer = setTimeout(() => {
      waiting.delete(timer);
      if (!closed) socket.send(packet, to.port, to.address);
    }, delayMs);
    waiting.add(timer);
  };

  const answer = (query: DecodedPacket, from: RemoteInfo): void => {
    const question = query.questions?.[0];
    if (!question) return;
    const name = normalise(question.name);
    const type = question.type;
    const queryCount = count(name, type);
    const entry = entryFor(zones, name);
    const records = typeof entry === 'function' ? entry({ name, type, count: queryCount }) : entry;
    const delayMs = records?.delayMs ?? server.delayMs;
    if (records?.silent) return;
    if (!records) send(response(query, RCODES.NXDOMAIN, []), from, delayMs);
    else if (records.rcode) send(response(query, RCODES[records.rcode], []), from, delayMs);
    else send(response(query, 0, answersOf(question.name, type, records)), from, delayMs);
  };

  socket.on('message', (message, from) => {
    let query: DecodedPacket;
    try {
      query = decode(message);
    } catch {
      return; // not DNS: a real server drops it too
    }
    if (query.type === 'query') answer(query, from);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const { port } = socket.address() as AddressInfo;

  const server: TestDnsServer = {
    address: `127.0.0.1:${port}`,
    port,
    delayMs: options.delayMs ?? 0,
    set(name, entry) {
      zones.set(normalise(name), entry);
    },
    queries(name, type) {
      if (name === undefined) return total;
      const key = type === undefined ? normalise(name) : `${normalise(name)} ${type}`;
      return counts.get(key) ?? 0;
    },
    resetCounts() {
      total = 0;
      counts.clear();
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of waiting) clearTimeout(timer);
      waiting.clear();
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
  return server;
}
