/**
 * Fetching Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; MCP
 * 2025-11-25 §Client ID Metadata Documents) without letting a client id turn the server into a
 * proxy into its own network (SSRF): https only, every resolved address public, no redirects, a
 * timeout and a size cap.
 */

import { readCapped, StreamTooLargeError } from "../foundation/streams.ts";

/** Fetches the JSON document a `client_id` URL names; injectable so tests need no network. */
export type ClientMetadataFetcher = (clientIdUrl: URL) => Promise<unknown>;

/** Largest document accepted (CFOP uses 5 KB; a little more room for long redirect lists). */
export const MAX_CLIENT_METADATA_BYTES = 8 * 1024;
/** Whole-fetch timeout. */
export const CLIENT_METADATA_TIMEOUT_MS = 5_000;

/** Why a Client ID Metadata Document could not be used. */
export class ClientMetadataFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClientMetadataFetchError";
  }
}

function ipv4Octets(ip: string): number[] | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  const octets = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return octets.every((o) => o >= 0 && o <= 255) ? octets : null;
}

function isPrivateIpv4(o: number[]): boolean {
  const [a, b, c] = o;
  return a === 0 || // "this network" (RFC 791)
    a === 10 || // RFC 1918
    (a === 100 && b >= 64 && b <= 127) || // CGNAT (RFC 6598)
    a === 127 || // loopback (RFC 1122)
    (a === 169 && b === 254) || // link-local, cloud metadata endpoints (RFC 3927)
    (a === 172 && b >= 16 && b <= 31) || // RFC 1918
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
    (a === 192 && b === 88 && c === 99) || // 6to4 relay anycast
    (a === 192 && b === 168) || // RFC 1918
    (a === 198 && (b === 18 || b === 19)) || // benchmarking (RFC 2544)
    (a === 198 && b === 51 && c === 100) || // TEST-NET-2
    (a === 203 && b === 0 && c === 113) || // TEST-NET-3
    a >= 224; // multicast, reserved, broadcast
}

/** Expands an IPv6 literal (no brackets, optional zone) to eight 16-bit groups, or `null`. */
function ipv6Groups(ip: string): number[] | null {
  let s = ip.toLowerCase().replace(/%.*$/, "");
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    // A dotted IPv4 tail (::ffff:1.2.3.4) is the last two groups.
    const o = ipv4Octets(v4[1]);
    if (!o) return null;
    s = s.slice(0, -v4[1].length) + ((o[0] << 8) | o[1]).toString(16) + ":" +
      ((o[2] << 8) | o[3]).toString(16);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parse = (h: string) =>
    h === "" ? [] : h.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = halves.length === 2 ? [...head, ...new Array(missing).fill(0), ...rest] : head;
  return groups.some((g) => Number.isNaN(g)) ? null : groups;
}

/**
 * Whether `ip` (v4 or v6 literal) is an address the server must never fetch from: loopback,
 * private, link-local, CGNAT, multicast, documentation and reserved ranges, including IPv4
 * embedded in IPv6 (mapped, NAT64). Unparseable input counts as private (fail closed).
 */
export function isPrivateAddress(ip: string): boolean {
  const literal = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const v4 = ipv4Octets(literal);
  if (v4) return isPrivateIpv4(v4);
  const g = ipv6Groups(literal);
  if (!g) return true;
  const embeddedV4 = [g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255];
  if (g.slice(0, 7).every((x) => x === 0)) return true; // :: and ::1 (and ::/96, deprecated)
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return isPrivateIpv4(embeddedV4); // ::ffff:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b) return isPrivateIpv4(embeddedV4); // NAT64 64:ff9b::/96
  if ((g[0] & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((g[0] & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g[0] & 0xffc0) === 0xfec0) return true; // site-local (deprecated) fec0::/10
  if ((g[0] & 0xff00) === 0xff00) return true; // multicast ff00::/8
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation 2001:db8::/32
  if (g[0] === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return true; // discard 100::/64
  if (g[0] === 0x2002) return isPrivateIpv4([g[1] >> 8, g[1] & 255, g[2] >> 8, g[2] & 255]); // 6to4
  return false;
}

/**
 * Why `clientId` cannot be a Client ID Metadata Document URL, or `null` when it can: https, a
 * host, a path other than `/`, no fragment, no user info, no dot segments
 * (draft-ietf-oauth-client-id-metadata-document §3).
 */
export function clientIdUrlProblem(clientId: string): string | null {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "https:") return "must use https";
  if (url.username || url.password) return "must not contain user information";
  if (clientId.includes("#")) return "must not contain a fragment";
  if (url.pathname === "/" || url.pathname === "") return "must have a path";
  if (/\/\.\.?(\/|$)/.test(clientId.replace(/^https:\/\/[^/]*/i, ""))) {
    return "must not contain dot segments";
  }
  if (url.href !== clientId) return "must be in normalised form";
  return null;
}

/** DNS resolution, injectable for tests of the guard. */
export type ResolveAddresses = (hostname: string) => Promise<string[]>;

/** A and AAAA records through `Deno.resolveDns` (errors for one family are not fatal). */
export const resolveWithDenoDns: ResolveAddresses = async (hostname) => {
  const [a, aaaa] = await Promise.allSettled([
    Deno.resolveDns(hostname, "A"),
    Deno.resolveDns(hostname, "AAAA"),
  ]);
  return [
    ...(a.status === "fulfilled" ? a.value : []),
    ...(aaaa.status === "fulfilled" ? aaaa.value : []),
  ];
};

/**
 * Refuses a host whose addresses are not all public. Every address must be public (not just one),
 * so a name that resolves to both a public and a private address cannot steer the fetch inward.
 * Residual risk, stated plainly: `fetch` resolves the name again, so a DNS answer that changes
 * between the two lookups (rebinding with TTL 0) is not fully excluded; the short timeout, no
 * redirects and the size cap limit what such a request could do.
 */
export async function assertPublicHost(hostname: string, resolve: ResolveAddresses): Promise<void> {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  if (ipv4Octets(bare) || bare.includes(":")) {
    if (isPrivateAddress(bare)) {
      throw new ClientMetadataFetchError(`${hostname} is not a public address`);
    }
    return;
  }
  if (bare === "localhost" || bare.endsWith(".localhost") || !bare.includes(".")) {
    throw new ClientMetadataFetchError(`${hostname} is not a public host name`);
  }
  let addresses: string[];
  try {
    addresses = await resolve(bare);
  } catch {
    throw new ClientMetadataFetchError(`${hostname} does not resolve`);
  }
  if (addresses.length === 0) throw new ClientMetadataFetchError(`${hostname} does not resolve`);
  const blocked = addresses.find(isPrivateAddress);
  if (blocked) {
    throw new ClientMetadataFetchError(`${hostname} resolves to a non-public address (${blocked})`);
  }
}

/** Options of `fetchClientMetadataDocument`. */
export interface FetchClientMetadataOptions {
  resolve?: ResolveAddresses;
  fetch?: typeof fetch;
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * The real fetcher: SSRF guard, then GET with no redirects (a redirect could point inward), a
 * timeout, a byte cap read from the stream, and JSON parsing. Throws `ClientMetadataFetchError`.
 */
export async function fetchClientMetadataDocument(
  clientIdUrl: URL,
  options: FetchClientMetadataOptions = {},
): Promise<unknown> {
  const maxBytes = options.maxBytes ?? MAX_CLIENT_METADATA_BYTES;
  if (clientIdUrl.protocol !== "https:") {
    throw new ClientMetadataFetchError("client_id must use https");
  }
  await assertPublicHost(clientIdUrl.hostname, options.resolve ?? resolveWithDenoDns);
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(clientIdUrl, {
      redirect: "manual",
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(options.timeoutMs ?? CLIENT_METADATA_TIMEOUT_MS),
    });
  } catch {
    throw new ClientMetadataFetchError("the document could not be fetched");
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new ClientMetadataFetchError(`the document answered HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new ClientMetadataFetchError(`the document exceeds ${maxBytes} bytes`);
  }
  let bytes: Uint8Array = new Uint8Array(0);
  if (res.body) {
    try {
      bytes = await readCapped(res.body, maxBytes);
    } catch (err) {
      if (err instanceof StreamTooLargeError) {
        throw new ClientMetadataFetchError(`the document exceeds ${maxBytes} bytes`);
      }
      throw new ClientMetadataFetchError("the document could not be read in time");
    }
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ClientMetadataFetchError("the document is not JSON");
  }
}

/** The production fetcher. */
export const defaultClientMetadataFetcher: ClientMetadataFetcher = (url) =>
  fetchClientMetadataDocument(url);
