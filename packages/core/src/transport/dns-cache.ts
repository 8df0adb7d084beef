import { setNewest } from '../bounded-map';
import type { ResolvedAddress } from './dns-resolver';

/*
 * The cache of judged DNS answers.
 *
 * Only verdicts are kept: an address set after the URL policy found every
 * address public (or, with allowPrivateNetworks, after it resolved at all),
 * and refusals. A raw answer is never reused without its verdict, so a cached
 * entry cannot let an unchecked address through; and the connection is pinned
 * to exactly the set the verdict is about (pinned-pools.ts), so rebinding
 * stays impossible: a changed answer is only seen after the entry expires, is
 * judged again, and a different set gets a new pool.
 *
 * How long an entry lives is a pure function of what DNS said, decided below
 * and tested as tables; the cache itself takes "now" from its caller.
 */

/** Shortest reuse of a checked answer, whatever its TTL (0 included): one query per name per second at most. */
export const MIN_ANSWER_TTL_MS = 1000;
/** Longest reuse of a checked answer, whatever its TTL: a moved receiver is followed within 5 minutes. */
export const MAX_ANSWER_TTL_MS = 300_000;
/** Longest reuse of a failure: the name does not exist, has no address, or resolves to a refused address. */
export const MAX_FAILURE_TTL_MS = 30_000;
/** Reuse of a failure that may pass at once (timeout, server failure, no server reached). */
export const TRANSIENT_FAILURE_TTL_MS = 5000;

/** Error codes of c-ares (and getaddrinfo) meaning the name has no address, as opposed to "no answer". */
const NO_ADDRESS_CODES = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/** A hostname the URL policy refused, and why (the message speaks to the agency). */
export interface HostRefusal {
  ok: false;
  reason: 'unresolvable_host' | 'private_address';
  message: string;
  cause?: unknown;
}

/** What the URL policy decided about one hostname's DNS answer. */
export type HostVerdict = { ok: true; addresses: ResolvedAddress[] } | HostRefusal;

/** A verdict and until when it may be reused (the caller's clock, ms); `null`: not to be reused. */
export interface JudgedAnswer {
  verdict: HostVerdict;
  expiresAt: number | null;
}

/**
 * How long a checked answer may be reused, in ms: its smallest record TTL,
 * clamped to [1 s, 5 min]. `null` when an address carries no TTL (a custom
 * resolver that reports none): such an answer is never reused.
 *
 * @example
 * ```ts
 * answerTtlMs([{ address: '93.184.216.34', family: 4, ttl: 60 }]); // 60_000
 * ```
 */
export function answerTtlMs(answers: readonly ResolvedAddress[]): number | null {
  if (answers.length === 0) return null;
  let smallest = Number.POSITIVE_INFINITY;
  for (const { ttl } of answers) {
    if (ttl === undefined || !Number.isFinite(ttl) || ttl < 0) return null;
    smallest = Math.min(smallest, ttl);
  }
  return Math.min(MAX_ANSWER_TTL_MS, Math.max(MIN_ANSWER_TTL_MS, smallest * 1000));
}

/**
 * How long a failed lookup may be reused, in ms, from its error code: 30 s
 * when the name has no address (NXDOMAIN, no A or AAAA record), 5 s for a
 * failure that may pass (timeout, SERVFAIL, refused, unknown).
 */
export function lookupFailureTtlMs(code: string | undefined): number {
  return code !== undefined && NO_ADDRESS_CODES.has(code) ? MAX_FAILURE_TTL_MS : TRANSIENT_FAILURE_TTL_MS;
}

/**
 * How long a refused answer (a private address) may be reused, in ms: its TTL
 * clamped to [1 s, 30 s]; `null` when it carries no TTL.
 */
export function refusalTtlMs(answers: readonly ResolvedAddress[]): number | null {
  const ttl = answerTtlMs(answers);
  return ttl === null ? null : Math.min(ttl, MAX_FAILURE_TTL_MS);
}

/** Whether an entry that expires at `expiresAt` may still be used at `now` (same clock, ms). */
export function isFresh(expiresAt: number | null, now: number): boolean {
  return expiresAt !== null && now < expiresAt;
}

/** Judged answers by hostname, bounded; the caller passes its clock's "now" to every call. */
export interface DnsCache {
  /** The fresh judged answer of `hostname` at `now`, or undefined (an expired one is dropped). */
  get(hostname: string, now: number): JudgedAnswer | undefined;
  /** Keeps `verdict` for `ttlMs` from `now` and returns it as a judged answer; `ttlMs` null keeps nothing. */
  set(hostname: string, verdict: HostVerdict, ttlMs: number | null, now: number): JudgedAnswer;
  /** Entries held, fresh or not yet swept. */
  readonly size: number;
}

/**
 * Creates the cache of judged answers; past `capacity` hostnames the one
 * stored longest ago is dropped.
 */
export function createDnsCache(capacity: number): DnsCache {
  const entries = new Map<string, JudgedAnswer>();
  return {
    get(hostname, now) {
      const entry = entries.get(hostname);
      if (entry === undefined) return undefined;
      if (isFresh(entry.expiresAt, now)) return entry;
      entries.delete(hostname);
      return undefined;
    },
    set(hostname, verdict, ttlMs, now) {
      const judged: JudgedAnswer = { verdict, expiresAt: ttlMs === null ? null : now + ttlMs };
      if (judged.expiresAt !== null) setNewest(entries, hostname, judged, capacity);
      return judged;
    },
    get size() {
      return entries.size;
    },
  };
}
