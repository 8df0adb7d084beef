import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setNewest } from '../bounded-map';
import { type DeadlineResult, withinDeadline } from '../deadline';
import { InvalidOptionError, InvalidWebhookUrlError } from '../errors';
import { positiveIntegerOption } from '../validation';
import {
  answerTtlMs,
  createDnsCache,
  type HostRefusal,
  type HostVerdict,
  isFresh,
  type JudgedAnswer,
  lookupFailureTtlMs,
  refusalTtlMs,
} from './dns-cache';
import { createDnsResolver, type HostResolver, isLocalhostName, type ResolvedAddress } from './dns-resolver';
import {
  createDeniedAddressTest,
  DEFAULT_DENIED_RANGES,
  type DeniedAddressTest,
  isPublicAddress,
} from './public-address';
import { createSharedLookups } from './shared-lookups';

export type { HostResolver, ResolvedAddress } from './dns-resolver';
export { DEFAULT_DENIED_RANGES, isPublicAddress } from './public-address';

/** Which webhook URLs are accepted: the `urlPolicy` option of {@link createWebhookService}. */
export interface UrlPolicyOptions {
  /**
   * Accept `http:` URLs as well as `https:`. Development only: deliveries would
   * travel unencrypted and the signature would be readable on the wire.
   * @default false
   */
  allowHttp?: boolean;
  /**
   * Skip the public-address check (the hostname must still resolve), so that
   * `localhost`, `127.0.0.1` and private networks are reachable. Development
   * and tests only: in production this opens the service to SSRF.
   * @default false
   */
  allowPrivateNetworks?: boolean;
  /**
   * CIDR ranges webhooks may never reach, refused as `private_address`. They add
   * to the built-in rule (never loosen it) and hold even with
   * `allowPrivateNetworks`; an IPv6 form that carries an IPv4 address is judged
   * by that address too. Giving the option replaces the default list: spread
   * {@link DEFAULT_DENIED_RANGES} to keep it.
   * @default DEFAULT_DENIED_RANGES (cloud metadata and platform addresses)
   * @example
   * ```ts
   * createUrlPolicy({ deniedRanges: [...DEFAULT_DENIED_RANGES, '203.0.113.0/24'] });
   * ```
   */
  deniedRanges?: readonly string[];
  /**
   * Resolver used at configuration time and again before every send; replaces
   * the built-in one entirely (`dnsServers` is then ignored). Its answers are
   * cached, once checked, only when every address carries a `ttl`; its
   * failures are never cached.
   * @default the built-in c-ares resolver: `dns.promises.Resolver`, A and AAAA in parallel, answers cached for their TTL
   * @example
   * ```ts
   * createUrlPolicy({ resolve: async () => [{ address: '93.184.216.34', family: 4, ttl: 60 }] });
   * ```
   */
  resolve?: HostResolver;
  /**
   * DNS servers of the built-in resolver, as `Resolver#setServers` takes them:
   * an IPv4 or IPv6 address with an optional port.
   * @default the system's servers (from `/etc/resolv.conf`)
   * @example
   * ```ts
   * createUrlPolicy({ dnsServers: ['10.0.0.2', '127.0.0.1:5353', '[2606:4700:4700::1111]:53'] });
   * ```
   */
  dnsServers?: string[];
  /**
   * Longest wait for a DNS answer, in ms; a slower answer counts as
   * `unresolvable_host`. The built-in resolver cancels its queries then.
   * @default 5000
   */
  lookupTimeoutMs?: number;
  /**
   * DNS lookups one agency may have in flight at once. Lookups of one hostname
   * are shared and count once, so an agency sending to its one receiver uses
   * one. Past the limit a check fails at once as `unresolvable_host` (a send's
   * error kind is `dns`) and nothing is queried or cached.
   * @default 4
   */
  maxLookupsPerAgency?: number;
}

/** A URL that passed the policy, with the addresses that were checked. */
export interface CheckedUrl {
  /** The parsed URL. Its `href` is the normalised form: what is stored and what a send goes to. */
  url: URL;
  /** Hostname without IPv6 brackets. */
  hostname: string;
  /**
   * Every address of the hostname, all checked. Connections go to these
   * addresses only; the first is the preferred one.
   */
  addresses: ResolvedAddress[];
}

/** Options of {@link UrlPolicy.check}. */
export interface UrlCheckOptions {
  /** The agency the URL belongs to: a lookup this check starts counts against its limit. */
  agencyId?: string | undefined;
}

/** The URL rules of the service (https only, resolvable, public addresses only). */
export interface UrlPolicy {
  readonly allowHttp: boolean;
  readonly allowPrivateNetworks: boolean;
  /**
   * Checks `url`: on a fresh resolution of its hostname, or on a judged answer
   * still within its TTL.
   * @throws {@link InvalidWebhookUrlError} with the reason the URL was refused.
   */
  check(url: string, options?: UrlCheckOptions): Promise<CheckedUrl>;
  /**
   * The result of an earlier successful check of exactly this URL that is
   * still valid without any I/O (an IP-literal host, or a hostname whose
   * judged answer is within its TTL), so a sender can skip an asynchronous
   * step; undefined otherwise.
   */
  known(url: string): CheckedUrl | undefined;
}

/** The two switches {@link assertUrlShape} needs. */
export type UrlShapeRules = Pick<UrlPolicyOptions, 'allowHttp' | 'allowPrivateNetworks'>;

/** What tests may replace in {@link createUrlPolicy}; not part of the options. */
export interface UrlPolicyInternals {
  /** Monotonic clock in ms for the DNS cache. @default performance.now */
  now?: () => number;
}

const DEFAULT_LOOKUP_TIMEOUT_MS = 5000;
const DEFAULT_MAX_LOOKUPS_PER_AGENCY = 4;
/** Most hostnames whose judged answers are kept, and most URLs whose checks are (oldest dropped first). */
const CACHE_SIZE = 10_000;

/** Hostname without IPv6 brackets. */
function bareHostname(url: URL): string {
  const { hostname } = url;
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch (error) {
    throw new InvalidWebhookUrlError('invalid_url', 'The webhook URL is not a valid absolute URL.', {
      cause: error,
    });
  }
}

function assertScheme(url: URL, allowHttp: boolean): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:') {
    if (allowHttp) return;
    throw new InvalidWebhookUrlError('not_https', 'The webhook URL must use https; http is not accepted.');
  }
  // Any other scheme (ftp:, file:, javascript:) breaks the same rule: only https is accepted.
  throw new InvalidWebhookUrlError('not_https', `The webhook URL must use https, not "${url.protocol}".`);
}

/**
 * The synchronous part of the policy: parses `url` (WHATWG rules, which also
 * normalise decimal, octal, hex and short IPv4 hosts), then checks the scheme,
 * refuses credentials in the URL, an explicit port outside 1–65535, and
 * `localhost` names without a lookup. The result's `href` is the normalised
 * URL: what the service stores and what a send goes to.
 *
 * @throws {@link InvalidWebhookUrlError} with reason `invalid_url`, `not_https` or `private_address`.
 * @example
 * ```ts
 * assertUrlShape('https://hooks.example.com/in', {}).hostname; // 'hooks.example.com'
 * ```
 */
export function assertUrlShape(url: string, rules: UrlShapeRules): URL {
  const parsed = parseUrl(url);
  assertScheme(parsed, rules.allowHttp ?? false);
  if (parsed.username !== '' || parsed.password !== '') {
    throw new InvalidWebhookUrlError(
      'invalid_url',
      'The webhook URL must not contain a user name or password.',
    );
  }
  if (parsed.hostname === '') {
    throw new InvalidWebhookUrlError('invalid_url', 'The webhook URL has no host.');
  }
  // The WHATWG parser refuses ports above 65535 and drops the scheme's default, but keeps an explicit 0.
  if (parsed.port !== '' && !(Number(parsed.port) >= 1 && Number(parsed.port) <= 65_535)) {
    throw new InvalidWebhookUrlError(
      'invalid_url',
      'The port of the webhook URL must be between 1 and 65535.',
    );
  }
  if (!rules.allowPrivateNetworks && isLocalhostName(bareHostname(parsed))) {
    throw new InvalidWebhookUrlError('private_address', 'The webhook URL must not point at localhost.');
  }
  return parsed;
}

function unresolvable(hostname: string, detail: string, cause?: unknown): HostRefusal {
  return {
    ok: false,
    reason: 'unresolvable_host',
    message: `The host "${hostname}" ${detail}. Check the spelling and the DNS records of the webhook URL.`,
    cause,
  };
}

function privateAddress(hostname: string): HostRefusal {
  // The address itself stays out of the message: it would tell a tenant how internal names resolve.
  return {
    ok: false,
    reason: 'private_address',
    message: `The host "${hostname}" resolves to a private, loopback, reserved or blocked address; webhooks go to public addresses only.`,
  };
}

function refusal(verdict: HostRefusal): InvalidWebhookUrlError {
  return new InvalidWebhookUrlError(verdict.reason, verdict.message, { cause: verdict.cause });
}

/** Keeps only well-formed answers; a resolver answering garbage has not resolved the name. */
function validAnswers(answers: readonly ResolvedAddress[]): ResolvedAddress[] {
  return answers.filter((answer) => isIP(answer.address) !== 0);
}

/** The addresses as checked results carry them: canonical family, no TTL. */
function checkedAddresses(answers: readonly ResolvedAddress[]): ResolvedAddress[] {
  return answers.map(({ address }) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
}

/** The resolved settings of a policy, shared by its helpers. */
interface PolicySettings {
  allowPrivateNetworks: boolean;
  /** `deniedRanges`, which hold whatever `allowPrivateNetworks` says. */
  isDenied: DeniedAddressTest;
  resolve: HostResolver;
  lookupTimeoutMs: number;
  /** Failures are cached only for the built-in resolver, whose errors are known DNS outcomes. */
  cacheFailures: boolean;
}

/** Whether a webhook may go to `address`: public (unless private networks are allowed) and not denied. */
function isAllowedAddress(address: string, settings: PolicySettings): boolean {
  return (settings.allowPrivateNetworks || isPublicAddress(address)) && !settings.isDenied(address);
}

/** A lookup of `hostname` and the policy's verdict on it, with how long that verdict may be reused. */
async function lookUpAndJudge(
  hostname: string,
  settings: PolicySettings,
): Promise<{ verdict: HostVerdict; ttlMs: number | null }> {
  const { lookupTimeoutMs, cacheFailures } = settings;
  const failed = (verdict: HostRefusal, code: string | undefined) => ({
    verdict,
    ttlMs: cacheFailures ? lookupFailureTtlMs(code) : null,
  });
  const timedOut = `did not resolve within ${lookupTimeoutMs} ms`;
  let result: DeadlineResult<ResolvedAddress[]>;
  try {
    // Promise.resolve: a custom resolver that throws synchronously is caught here too.
    result = await withinDeadline(Promise.resolve(settings.resolve(hostname)), lookupTimeoutMs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const detail = code === 'ETIMEOUT' ? timedOut : 'does not resolve';
    return failed(unresolvable(hostname, detail, error), code);
  }
  if (result.kind !== 'done') return failed(unresolvable(hostname, timedOut), 'ETIMEOUT');
  const answers = validAnswers(result.value);
  if (answers.length === 0) return failed(unresolvable(hostname, 'has no A or AAAA record'), 'ENODATA');
  if (!answers.every(({ address }) => isAllowedAddress(address, settings))) {
    return { verdict: privateAddress(hostname), ttlMs: refusalTtlMs(answers) };
  }
  return { verdict: { ok: true, addresses: checkedAddresses(answers) }, ttlMs: answerTtlMs(answers) };
}

/** A check result that needs no I/O until `expiresAt` (Infinity for IP-literal hosts). */
interface KnownCheck {
  checked: CheckedUrl;
  expiresAt: number;
}

/**
 * Whole check results by URL: IP-literal hosts forever (no DNS is involved),
 * hostnames until their judged answer expires. This is what lets a send skip
 * the asynchronous check entirely (`UrlPolicy.known`); figures in
 * docs/benchmarks.md, section "DNS".
 */
function createKnownChecks(now: () => number) {
  const entries = new Map<string, KnownCheck>();
  return {
    get(url: string): CheckedUrl | undefined {
      const entry = entries.get(url);
      if (entry === undefined) return undefined;
      if (entry.expiresAt === Number.POSITIVE_INFINITY || isFresh(entry.expiresAt, now()))
        return entry.checked;
      entries.delete(url);
      return undefined;
    },
    keep(url: string, checked: CheckedUrl, expiresAt: number): void {
      setNewest(entries, url, { checked, expiresAt }, CACHE_SIZE);
    },
  };
}

/**
 * The judged answer for a hostname: from the cache while fresh, otherwise from
 * a lookup shared with every concurrent check of the name and counted against
 * the agency that starts it.
 */
function createHostJudge(settings: PolicySettings, maxPerAgency: number, now: () => number) {
  const hosts = createDnsCache(CACHE_SIZE);
  const lookups = createSharedLookups<JudgedAnswer>(maxPerAgency);
  const lookUp = async (hostname: string): Promise<JudgedAnswer> => {
    const { verdict, ttlMs } = await lookUpAndJudge(hostname, settings);
    return hosts.set(hostname, verdict, ttlMs, now());
  };
  return (hostname: string, agencyId: string | undefined): JudgedAnswer | Promise<JudgedAnswer> => {
    const cached = hosts.get(hostname, now());
    if (cached) return cached;
    const shared = lookups.join(hostname, agencyId, () => lookUp(hostname));
    if (shared) return shared;
    throw refusal(
      unresolvable(
        hostname,
        `was not looked up: this agency already has ${maxPerAgency} DNS lookups in flight; try again in a few seconds`,
      ),
    );
  };
}

/** The check of an IP-literal host: the address as it is, no DNS query. */
function literalCheck(parsed: URL, hostname: string, settings: PolicySettings): CheckedUrl {
  if (!isAllowedAddress(hostname, settings)) throw refusal(privateAddress(hostname));
  return { url: parsed, hostname, addresses: [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }] };
}

/**
 * Creates the URL policy used when a configuration is saved and again before
 * every send.
 *
 * Every address the hostname resolves to must be public, not just the first:
 * an attacker who controls a DNS zone can mix one public and one internal
 * address and let the client pick. A judged answer (never a raw one) is
 * reused for its TTL, clamped to [1 s, 5 min]; failures for at most 30 s
 * (dns-cache.ts). Concurrent lookups of one name share one query.
 *
 * @throws {@link InvalidOptionError} when `deniedRanges` holds anything but CIDR
 *   strings, or `maxLookupsPerAgency` is not a positive integer
 * @example
 * ```ts
 * const policy = createUrlPolicy();
 * const { hostname, addresses } = await policy.check('https://hooks.example.com/in');
 * ```
 */
export function createUrlPolicy(
  options: UrlPolicyOptions = {},
  internals: UrlPolicyInternals = {},
): UrlPolicy {
  const allowHttp = options.allowHttp ?? false;
  const allowPrivateNetworks = options.allowPrivateNetworks ?? false;
  const lookupTimeoutMs = options.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS;
  const settings: PolicySettings = {
    allowPrivateNetworks,
    isDenied: createDeniedAddressTest(options.deniedRanges ?? DEFAULT_DENIED_RANGES),
    resolve:
      options.resolve ?? createDnsResolver({ servers: options.dnsServers, timeoutMs: lookupTimeoutMs }),
    lookupTimeoutMs,
    cacheFailures: options.resolve === undefined,
  };
  const maxPerAgency = positiveIntegerOption(
    'urlPolicy.maxLookupsPerAgency',
    options.maxLookupsPerAgency,
    DEFAULT_MAX_LOOKUPS_PER_AGENCY,
  );
  const now = internals.now ?? (() => performance.now());
  const judge = createHostJudge(settings, maxPerAgency, now);
  const knownChecks = createKnownChecks(now);
  return {
    allowHttp,
    allowPrivateNetworks,
    known: knownChecks.get,
    async check(url, checkOptions) {
      const known = knownChecks.get(url);
      if (known) return known;
      const parsed = assertUrlShape(url, { allowHttp, allowPrivateNetworks });
      const hostname = bareHostname(parsed);
      if (isIP(hostname) !== 0) {
        const checked = literalCheck(parsed, hostname, settings);
        knownChecks.keep(url, checked, Number.POSITIVE_INFINITY);
        return checked;
      }
      const { verdict, expiresAt } = await judge(hostname, checkOptions?.agencyId);
      if (!verdict.ok) throw refusal(verdict);
      const checked: CheckedUrl = { url: parsed, hostname, addresses: verdict.addresses };
      if (expiresAt !== null) knownChecks.keep(url, checked, expiresAt);
      return checked;
    },
  };
}
