/** Client address for IP-keyed rate limits (DESIGN §6). */

import type { AppContext } from "./define.ts";

/**
 * The address every IP-keyed quota counts the request under: the socket's address, or with
 * `TRUST_PROXY=1` the right-most `X-Forwarded-For` hop (the one our own proxy appended; hops to its
 * left are client-supplied and spoofable), as `quotaAddressOf` reduces it.
 */
export function clientIpOf(c: AppContext, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for");
    if (forwarded) {
      const hops = forwarded.split(",").map((h) => h.trim()).filter(Boolean);
      if (hops.length > 0) return quotaAddressOf(hops[hops.length - 1]);
    }
  }
  return quotaAddressOf(c.env?.remoteAddr?.hostname ?? "unknown");
}

/**
 * The subject a client address is counted as. An IPv6 host is normally given a whole /64 (RFC 4291
 * §2.5.4: interface identifiers are 64 bits; RFC 8981 privacy addresses change within it at will),
 * so counting per address would let one host rotate through 2^64 quotas: an IPv6 address counts as
 * its /64 (`2001:db8:1:2::/64`). An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, RFC 4291
 * §2.5.5.2, what a dual-stack socket reports for an IPv4 client) counts as the IPv4 address. IPv4
 * addresses, and anything that does not parse, are kept as they are.
 */
export function quotaAddressOf(address: string): string {
  if (!address.includes(":")) return address; // IPv4 (every request pays for this line only)
  const hextets = ipv6Hextets(address);
  if (hextets === null) return address;
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    return [hextets[6] >> 8, hextets[6] & 255, hextets[7] >> 8, hextets[7] & 255].join(".");
  }
  return `${hextets.slice(0, 4).map((h) => h.toString(16)).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (RFC 4291 §2.2 text forms), or null. */
function ipv6Hextets(address: string): number[] | null {
  let text = address.trim().toLowerCase();
  if (text.startsWith("[")) text = text.slice(1, text.indexOf("]") >>> 0);
  text = text.split("%")[0]; // a zone index (RFC 6874) names a local interface, not a host
  if (!text.includes(":")) return null;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const b = dotted.slice(2).map(Number);
    if (b.some((n) => n > 255)) return null;
    text = `${dotted[1]}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === "" ? [] : s.split(":"));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}
