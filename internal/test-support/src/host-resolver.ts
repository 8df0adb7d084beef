/** One address of a fake resolution; the same shape as core's `ResolvedAddress`. */
export interface FakeResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * What a hostname resolves to in {@link hostResolver}: one address, several,
 * or a function of the call number (1 for the first lookup of that name) for
 * answers that change, as in a DNS-rebinding test. An empty list is an empty
 * answer.
 */
export type FakeHostAnswer = string | string[] | ((call: number) => string | string[]);

/** A fake `HostResolver` that also counts its lookups per hostname. */
export interface FakeHostResolver {
  (hostname: string): Promise<FakeResolvedAddress[]>;
  /** How many times `hostname` was looked up. */
  calls(hostname: string): number;
}

function notFound(hostname: string): Error {
  const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  error.code = 'ENOTFOUND';
  return error;
}

/**
 * Builds a fake host resolver for `createUrlPolicy({ resolve })`. A hostname
 * missing from `map` fails like the system resolver does (`ENOTFOUND`).
 *
 * @example
 * ```ts
 * const resolve = hostResolver({
 *   'hooks.test': '127.0.0.1',
 *   'rebind.test': (call) => (call === 1 ? '93.184.216.34' : '127.0.0.1'),
 * });
 * ```
 */
export function hostResolver(map: Record<string, FakeHostAnswer>): FakeHostResolver {
  const counts = new Map<string, number>();
  const resolve = async (hostname: string): Promise<FakeResolvedAddress[]> => {
    const call = (counts.get(hostname) ?? 0) + 1;
    counts.set(hostname, call);
    const entry = Object.hasOwn(map, hostname) ? map[hostname] : undefined;
    if (entry === undefined) throw notFound(hostname);
    const answer = typeof entry === 'function' ? entry(call) : entry;
    const addresses = Array.isArray(answer) ? answer : [answer];
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls: (hostname: string) => counts.get(hostname) ?? 0 });
}
