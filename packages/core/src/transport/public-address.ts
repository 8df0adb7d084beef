import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

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
 * The IPv4 addresses a packet to `address` would really reach, or null when
 * `address` is a plain IPv6 address.
 *
 * - IPv4-mapped `::ffff:a.b.c.d` and RFC 6145 `::ffff:0:a.b.c.d`: last 32 bits.
 * - IPv4-compatible `::a.b.c.d` (deprecated; `::` and `::1` excluded, they are
 *   the IPv6 unspecified and loopback addresses): last 32 bits.
 * - NAT64 `64:ff9b::/96` and the local-use `64:ff9b:1::/48`: last 32 bits
 *   (the RFC 6052 /96 layout that DNS64 resolvers synthesise).
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
  if (hasPrefix(address, [0x64, 0xff9b, 0, 0, 0, 0]) || hasPrefix(address, [0x64, 0xff9b, 1])) {
    return [lastIPv4(address)];
  }
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
  const embedded = embeddedIPv4(parsed as IPv6);
  if (embedded) return embedded.every((inner) => inner.range() === 'unicast');
  return parsed.range() === 'unicast';
}
