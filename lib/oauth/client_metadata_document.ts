/**
 * Fetching Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; MCP
 * 2025-11-25 §Client ID Metadata Documents) without letting a client id turn the server into a
 * proxy into its own network (SSRF): https only, every resolved address public, the connection
 * made to the addresses that were checked (no second resolution: DNS rebinding), no redirects, a
 * timeout and a size cap (draft-ietf-oauth-client-id-metadata-document §6).
 */

import { request as httpsRequest } from "node:https";
import { rootCertificates } from "node:tls";
import { StreamTooLargeError } from "../foundation/streams.ts";

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
 * What every failure to reach a document reads as: a refused address, a name that does not
 * resolve, a refused connection, a bad certificate and a timeout all look alike, so the error
 * text is no oracle for which internal names exist or what they resolve to
 * (draft-ietf-oauth-client-id-metadata-document §6 "Security Considerations", server-side
 * request forgery; issue #19 item 10).
 */
export const UNREACHABLE = "the document could not be fetched from a public https address";

/** Whether an address may be connected to: public only, unless a test allows its own server. */
export type AllowAddress = (ip: string) => boolean;

/** The default `AllowAddress`: every public address, no private one (`isPrivateAddress`). */
export const publicAddressesOnly: AllowAddress = (ip) => !isPrivateAddress(ip);

/**
 * The addresses the fetch may connect to: the literal itself, or every address the name
 * resolves to — each of which must be allowed, so a name that resolves to both a public and a
 * private address cannot steer the fetch inward. The fetch then connects to these addresses and
 * does not resolve the name again (`requestPinned`), so a DNS answer that changes between the
 * check and the connection (rebinding with TTL 0) cannot move it. Every refusal is `UNREACHABLE`.
 */
export async function checkedAddresses(
  hostname: string,
  resolve: ResolveAddresses,
  allow: AllowAddress = publicAddressesOnly,
): Promise<string[]> {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  const literal = ipv4Octets(bare) !== null || bare.includes(":");
  if (!literal && (bare === "localhost" || bare.endsWith(".localhost") || !bare.includes("."))) {
    throw new ClientMetadataFetchError(UNREACHABLE);
  }
  let addresses: string[];
  try {
    addresses = literal ? [bare] : await resolve(bare);
  } catch {
    throw new ClientMetadataFetchError(UNREACHABLE);
  }
  if (addresses.length === 0 || !addresses.every(allow)) {
    throw new ClientMetadataFetchError(UNREACHABLE);
  }
  return addresses;
}

/** Refuses a host whose addresses are not all public (`checkedAddresses` without the result). */
export async function assertPublicHost(hostname: string, resolve: ResolveAddresses): Promise<void> {
  await checkedAddresses(hostname, resolve);
}

/** Options of `fetchClientMetadataDocument`. */
export interface FetchClientMetadataOptions {
  resolve?: ResolveAddresses;
  /** Which resolved addresses may be connected to; tests allow their own loopback server. */
  allowAddress?: AllowAddress;
  /** Root certificates (PEM) trusted besides the default ones: a test server's CA. */
  caCerts?: string[];
  timeoutMs?: number;
  maxBytes?: number;
}

/** A document's HTTP answer, read within the byte cap. */
interface PinnedAnswer {
  status: number;
  body: Uint8Array;
}

/** Node's `lookup` callback, in both of its forms (one address, or `all`). */
type LookupCallback = (
  err: Error | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/**
 * One GET of `url` over TLS to one of `addresses`, never to what the name resolves to now.
 * Why node:https: Deno's `fetch` resolves the name itself and `Deno.createHttpClient` has no
 * resolver (its `tcp` proxy transport speaks plain HTTP only, tried with Deno 2.9), while
 * node:https takes a `lookup` function, keeps the URL's host for SNI, certificate verification
 * and `Host`, follows no redirect, and pools nothing with `agent: false`.
 */
function requestPinned(
  url: URL,
  addresses: string[],
  options: { caCerts?: string[]; timeoutMs: number; maxBytes: number },
): Promise<PinnedAnswer> {
  const pinned = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  const lookup = (_host: string, opts: unknown, cb: LookupCallback) => {
    const all = typeof opts === "object" && opts !== null && (opts as { all?: boolean }).all;
    if (all) cb(null, pinned);
    else cb(null, pinned[0].address, pinned[0].family);
  };
  return new Promise<PinnedAnswer>((resolve, reject) => {
    const req = httpsRequest(url, {
      method: "GET",
      agent: false,
      lookup,
      ...(options.caCerts ? { ca: [...rootCertificates, ...options.caCerts] } : {}),
      headers: { accept: "application/json", "user-agent": "RoutineTracker-CIMD/1" },
    }, (res) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      const declared = Number(res.headers["content-length"] ?? "0");
      if (declared > options.maxBytes) {
        return req.destroy(new StreamTooLargeError(options.maxBytes));
      }
      res.on("data", (chunk: Uint8Array) => {
        size += chunk.byteLength;
        if (size > options.maxBytes) return req.destroy(new StreamTooLargeError(options.maxBytes));
        chunks.push(chunk);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: concat(chunks, size) }));
      res.on("error", reject);
    });
    const timer = setTimeout(() => req.destroy(new Error("timeout")), options.timeoutMs);
    req.on("error", reject);
    req.on("close", () => clearTimeout(timer));
    req.end();
  });
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/**
 * The real fetcher: the SSRF guard (`checkedAddresses`), then one GET pinned to the checked
 * addresses, with no redirects (a redirect could point inward), a timeout, a byte cap and JSON
 * parsing. Throws `ClientMetadataFetchError`: `UNREACHABLE` for anything that kept the document
 * from being fetched, a specific reason only about what a public server answered.
 */
export async function fetchClientMetadataDocument(
  clientIdUrl: URL,
  options: FetchClientMetadataOptions = {},
): Promise<unknown> {
  const maxBytes = options.maxBytes ?? MAX_CLIENT_METADATA_BYTES;
  if (clientIdUrl.protocol !== "https:") throw new ClientMetadataFetchError(UNREACHABLE);
  const addresses = await checkedAddresses(
    clientIdUrl.hostname,
    options.resolve ?? resolveWithDenoDns,
    options.allowAddress,
  );
  let answer: PinnedAnswer;
  try {
    answer = await requestPinned(clientIdUrl, addresses, {
      caCerts: options.caCerts,
      timeoutMs: options.timeoutMs ?? CLIENT_METADATA_TIMEOUT_MS,
      maxBytes,
    });
  } catch (err) {
    if (err instanceof StreamTooLargeError) {
      throw new ClientMetadataFetchError(`the document exceeds ${maxBytes} bytes`);
    }
    throw new ClientMetadataFetchError(UNREACHABLE);
  }
  if (answer.status !== 200) {
    throw new ClientMetadataFetchError(`the document answered HTTP ${answer.status}`);
  }
  try {
    return JSON.parse(new TextDecoder().decode(answer.body));
  } catch {
    throw new ClientMetadataFetchError("the document is not JSON");
  }
}

/** The production fetcher. */
export const defaultClientMetadataFetcher: ClientMetadataFetcher = (url) =>
  fetchClientMetadataDocument(url);
