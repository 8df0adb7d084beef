import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { InvalidOptionError } from '../errors';

/*
 * Which IP addresses a webhook may be sent to.
 *
 * The rule is "public unicast only": ipaddr.js must classify the address as
 * `unicast`, which excludes loopback, RFC 1918 private, link-local (and so the
 * 169.254.169.254 cloud metadata endpoint), carrier-grade NAT, multicast,
 * broadcast, unspecified, documentation and other reserved ranges.
 *
 * IPv6 has several forms that carry an IPv4 address inside. A packet sent to
 * one of them ends up at that IPv4 address (through the kernel, a NAT64
 * gateway, a 6to4 relay or a Teredo relay), so such an address is exactly as
 * public as the IPv4 address it carries. ipaddr.js classifies some of these
 * forms as `unicast` (IPv4-compatible `::a.b.c.d`) and others as their own
 * ranges, so they are decoded here and judged by the embedded IPv4 address,
 * never by the IPv6 range name.
 */

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** IPv4 address from 32 bits held in two 16-bit IPv6 groups. */
function ipv4FromGroups(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** Last 32 bits of an IPv6 address as IPv4. */
function lastIPv4(address: IPv6): IPv4 {
  const [high = 0, low = 0] = address.parts.slice(6);
  return ipv4FromGroups(high, low);
}

function hasPrefix(address: IPv6, prefix: number[]): boolean {
  return prefix.every((group, index) => address.parts[index] === group);
}

/**
 * Whether `address` is in the NAT64 local-use prefix `64:ff9b:1::/48` (RFC 8215).
 * Refused whole, never judged by an embedded IPv4 address: the operator of a
 * local translator picks the prefix length (/48 to /96), so the IPv4 address
 * can sit at any of the RFC 6052 positions, and the translator may map it to
 * anything in its own network. The last 32 bits say nothing reliable.
 */
function isLocalUseNat64(address: IPv6): boolean {
  return hasPrefix(address, [0x64, 0xff9b, 1]);
}

/**
 * The IPv4 addresses a packet to `address` would really reach, or null when
 * `address` is a plain IPv6 address.
 *
 * - IPv4-mapped `::ffff:a.b.c.d` and RFC 6145 `::ffff:0:a.b.c.d`: last 32 bits.
 * - IPv4-compatible `::a.b.c.d` (deprecated; `::` and `::1` excluded, they are
 *   the IPv6 unspecified and loopback addresses): last 32 bits.
 * - NAT64 `64:ff9b::/96`: last 32 bits (the RFC 6052 /96 layout of the
 *   well-known prefix). The local-use `64:ff9b:1::/48` is not decoded: see
 *   {@link isLocalUseNat64}.
 * - 6to4 `2002::/16`: bits 16..47.
 * - Teredo `2001::/32`: the server (bits 32..63) and the client, which is the
 *   last 32 bits inverted; both must be public, the relay talks to both.
 */
function embeddedIPv4(address: IPv6): IPv4[] | null {
  const parts = address.parts;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = parts;
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  if (zeroPrefix && g4 === 0 && (g5 === 0xffff || g5 === 0)) {
    if (g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) return null;
    return [lastIPv4(address)];
  }
  if (zeroPrefix && g4 === 0xffff && g5 === 0) return [lastIPv4(address)];
  if (hasPrefix(address, [0x64, 0xff9b, 0, 0, 0, 0])) return [lastIPv4(address)];
  if (g0 === 0x2002) return [ipv4FromGroups(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) {
    return [ipv4FromGroups(g2, g3), ipv4FromGroups(g6 ^ 0xffff, g7 ^ 0xffff)];
  }
  return null;
}

/**
 * Whether `address` is a public unicast IP address that a webhook may be sent to.
 *
 * @remarks Only canonical IPv4 dotted quads and IPv6 text forms are accepted
 * (`net.isIP`); anything else, such as `0177.0.0.1` or `127.1`, is not an
 * address and answers false. URL hosts are canonicalised by the WHATWG URL
 * parser before they get here.
 *
 * @example
 * ```ts
 * isPublicAddress('93.184.216.34'); // true
 * isPublicAddress('::ffff:127.0.0.1'); // false
 * ```
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  if (isLocalUseNat64(parsed as IPv6)) return false;
  const embedded = embeddedIPv4(parsed as IPv6);
  if (embedded) return embedded.every((inner) => inner.range() === 'unicast');
  return parsed.range() === 'unicast';
}

/**
 * Cloud platform addresses that `urlPolicy.deniedRanges` refuses by default,
 * with or without `allowPrivateNetworks`. Each is a place where a cloud serves
 * its instances credentials or platform services:
 *
 * - `169.254.0.0/16`: IPv4 link-local, where the metadata services of AWS, Google
 *   Cloud, Azure, Oracle Cloud, DigitalOcean and OpenStack answer at
 *   169.254.169.254, and AWS's DNS resolver (.253) and time service (.123) live.
 * - `168.63.129.16/32`: Azure's WireServer (VM agent, DHCP, DNS, load balancer
 *   probes). A public-looking address that the built-in rule would accept.
 * - `100.100.100.200/32`: Alibaba Cloud's metadata service.
 * - `fd00:ec2::254/128`, `fd00:ec2::253/128`, `fd00:ec2::123/128`: the IPv6
 *   metadata service, DNS resolver and time service of AWS Nitro instances.
 * - `fe80::a9fe:a9fe/128`: OpenStack's IPv6 metadata address.
 *
 * Only 168.63.129.16 is public unicast; the others are refused by the built-in
 * rule already and are listed so that they stay refused when
 * `allowPrivateNetworks` is on (development on a cloud VM, tests).
 */
export const DEFAULT_DENIED_RANGES: readonly string[] = Object.freeze([
  '169.254.0.0/16',
  '168.63.129.16/32',
  '100.100.100.200/32',
  'fd00:ec2::254/128',
  'fd00:ec2::253/128',
  'fd00:ec2::123/128',
  'fe80::a9fe:a9fe/128',
]);

/** Whether a packet to `address` would reach an address in one of the denied ranges. */
export type DeniedAddressTest = (address: string) => boolean;

const OPTION = 'urlPolicy.deniedRanges';

function invalidRanges(message: string): InvalidOptionError {
  return new InvalidOptionError('@svc/webhooks-core', OPTION, `${OPTION} ${message}`);
}

/**
 * One range in CIDR notation (`203.0.113.0/24`, `2001:db8::/32`) or a single
 * address. The address part must be a canonical address (`net.isIP`), so a
 * typo such as `10.0.0/8` or an octal `010.0.0.0/8` is refused, not guessed at.
 */
function parseRange(range: unknown): [ipaddr.IPv4 | IPv6, number] {
  if (typeof range !== 'string') {
    throw invalidRanges(`must hold CIDR strings such as '203.0.113.0/24'; got ${String(range)}.`);
  }
  const [address = '', prefix, extra] = range.split('/');
  const family = isIP(address);
  const bits = family === 6 ? 128 : 32;
  const length = prefix === undefined ? bits : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
  if (family === 0 || extra !== undefined || !(length >= 0 && length <= bits)) {
    throw invalidRanges(
      `must hold CIDR strings such as '203.0.113.0/24' or '2001:db8::/32'; got "${range}".`,
    );
  }
  return [ipaddr.parse(address), length];
}

/** The addresses a packet to `parsed` reaches: itself, and the IPv4 addresses an IPv6 form carries. */
function reachedAddresses(parsed: ipaddr.IPv4 | IPv6): Array<ipaddr.IPv4 | IPv6> {
  if (parsed.kind() === 'ipv4') return [parsed];
  return [parsed, ...(embeddedIPv4(parsed as IPv6) ?? [])];
}

/**
 * Builds the test of `urlPolicy.deniedRanges`. An IPv6 form that carries an
 * IPv4 address (`::ffff:168.63.129.16`, NAT64, 6to4, Teredo) is denied when the
 * IPv4 address it reaches is, so an IPv4 range covers those forms too.
 *
 * @throws {@link InvalidOptionError} when `ranges` is not an array of CIDR strings.
 */
export function createDeniedAddressTest(ranges: readonly string[]): DeniedAddressTest {
  if (!Array.isArray(ranges)) throw invalidRanges(`must be an array of CIDR strings; got ${String(ranges)}.`);
  const parsedRanges = ranges.map(parseRange);
  if (parsedRanges.length === 0) return () => false;
  return (address) => {
    if (isIP(address) === 0) return false;
    return reachedAddresses(ipaddr.parse(address)).some((reached) =>
      parsedRanges.some(
        ([network, length]) => reached.kind() === network.kind() && reached.match(network, length),
      ),
    );
  };
}
