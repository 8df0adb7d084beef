import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type DeadlineResult, withinDeadline } from '../deadline';
import { InvalidWebhookUrlError } from '../errors';
import { isPublicAddress } from './public-address';

export { isPublicAddress } from './public-address';

/** One address a hostname resolved to. */
export interface ResolvedAddress {
  /** Canonical IPv4 dotted quad or IPv6 text form (no brackets). */
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a hostname to every A and AAAA address it has, like
 * `dns.promises.lookup(hostname, { all: true })`. Rejects (or answers an empty
 * list) when the name does not resolve.
 */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Options of {@link createUrlPolicy}. */
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
   * Resolver used at configuration time and again before every send.
   * @default the system resolver: `dns.promises.lookup(hostname, { all: true, verbatim: true })`
   * @example
   * ```ts
   * createUrlPolicy({ resolve: async () => [{ address: '93.184.216.34', family: 4 }] });
   * ```
   */
  resolve?: HostResolver;
  /**
   * Longest wait for `resolve`, in ms; a slower answer counts as `unresolvable_host`.
   * @default 5000
   */
  lookupTimeoutMs?: number;
}

/** A URL that passed the policy, with the addresses that were checked. */
export interface CheckedUrl {
  url: URL;
  /** Hostname without IPv6 brackets. */
  hostname: string;
  /**
   * Every address of the hostname, all checked. Connections go to these
   * addresses only; the first is the preferred one.
   */
  addresses: ResolvedAddress[];
}

/** The URL rules of the service (https only, resolvable, public addresses only). */
export interface UrlPolicy {
  readonly allowHttp: boolean;
  readonly allowPrivateNetworks: boolean;
  /**
   * Checks `url` with a fresh resolution of its hostname.
   * @throws {@link InvalidWebhookUrlError} with the reason the URL was refused.
   */
  check(url: string): Promise<CheckedUrl>;
  /**
   * The result of an earlier successful check of exactly this URL when it needs
   * no DNS (an IP-literal host), so a sender can skip an asynchronous step;
   * undefined otherwise.
   */
  known(url: string): CheckedUrl | undefined;
}

/** The two switches {@link assertUrlShape} needs. */
export type UrlShapeRules = Pick<UrlPolicyOptions, 'allowHttp' | 'allowPrivateNetworks'>;

const DEFAULT_LOOKUP_TIMEOUT_MS = 5000;

const systemResolver: HostResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** Hostname without IPv6 brackets. */
function bareHostname(url: URL): string {
  const { hostname } = url;
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}

/** `localhost` and its subdomains (RFC 6761), with or without the root dot. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return name === 'localhost' || name.endsWith('.localhost');
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
 * refuses credentials in the URL and refuses `localhost` names without a lookup.
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
  if (!rules.allowPrivateNetworks && isLocalhostName(bareHostname(parsed))) {
    throw new InvalidWebhookUrlError('private_address', 'The webhook URL must not point at localhost.');
  }
  return parsed;
}

function unresolvable(hostname: string, detail: string, cause?: unknown): InvalidWebhookUrlError {
  return new InvalidWebhookUrlError(
    'unresolvable_host',
    `The host "${hostname}" ${detail}. Check the spelling and the DNS records of the webhook URL.`,
    { cause },
  );
}

/** Runs the resolver with a deadline; every failure becomes `unresolvable_host`. */
async function resolveWithin(resolve: HostResolver, hostname: string, timeoutMs: number) {
  let result: DeadlineResult<ResolvedAddress[]>;
  try {
    result = await withinDeadline(Promise.resolve(resolve(hostname)), timeoutMs);
  } catch (error) {
    throw unresolvable(hostname, 'does not resolve', error);
  }
  if (result.kind !== 'done') throw unresolvable(hostname, `did not resolve within ${timeoutMs} ms`);
  return result.value;
}

/** Keeps only well-formed answers; a resolver answering garbage has not resolved the name. */
function validAnswers(answers: readonly ResolvedAddress[]): ResolvedAddress[] {
  return answers
    .filter((answer) => isIP(answer.address) !== 0)
    .map(({ address }) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
}

async function addressesOf(hostname: string, resolve: HostResolver, timeoutMs: number) {
  const family = isIP(hostname);
  // IP literal hosts are checked as they are: no DNS query is made for them.
  if (family !== 0) return [{ address: hostname, family: family === 6 ? 6 : 4 } satisfies ResolvedAddress];
  const answers = validAnswers(await resolveWithin(resolve, hostname, timeoutMs));
  if (answers.length === 0) throw unresolvable(hostname, 'has no A or AAAA record');
  return answers;
}

/** Most URL-check results kept for IP-literal hosts (the cache is emptied when full). */
const LITERAL_CACHE_SIZE = 1024;

/**
 * Creates the URL policy used when a configuration is saved and again before
 * every send (on a fresh resolution, so DNS rebinding is caught).
 *
 * Every address the hostname resolves to must be public, not just the first:
 * an attacker who controls a DNS zone can mix one public and one internal
 * address and let the client pick.
 *
 * @example
 * ```ts
 * const policy = createUrlPolicy();
 * const { hostname, addresses } = await policy.check('https://hooks.example.com/in');
 * ```
 */
export function createUrlPolicy(options: UrlPolicyOptions = {}): UrlPolicy {
  const allowHttp = options.allowHttp ?? false;
  const allowPrivateNetworks = options.allowPrivateNetworks ?? false;
  const resolve = options.resolve ?? systemResolver;
  const lookupTimeoutMs = options.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS;
  // A URL whose host is an IP literal always checks the same way (no DNS is
  // involved), so its result is kept; a hostname is resolved afresh every time.
  const literalHosts = new Map<string, CheckedUrl>();
  return {
    allowHttp,
    allowPrivateNetworks,
    known: (url) => literalHosts.get(url),
    async check(url) {
      const known = literalHosts.get(url);
      if (known) return known;
      const parsed = assertUrlShape(url, { allowHttp, allowPrivateNetworks });
      const hostname = bareHostname(parsed);
      const addresses = await addressesOf(hostname, resolve, lookupTimeoutMs);
      if (!allowPrivateNetworks && !addresses.every(({ address }) => isPublicAddress(address))) {
        // The address itself stays out of the message: it would tell a tenant how internal names resolve.
        throw new InvalidWebhookUrlError(
          'private_address',
          `The host "${hostname}" resolves to a private, loopback or reserved address; webhooks go to public addresses only.`,
        );
      }
      const checked = { url: parsed, hostname, addresses };
      if (isIP(hostname) !== 0) {
        if (literalHosts.size >= LITERAL_CACHE_SIZE) literalHosts.clear();
        literalHosts.set(url, checked);
      }
      return checked;
    },
  };
}
