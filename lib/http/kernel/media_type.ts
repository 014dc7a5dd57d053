/**
 * The one media-type parser (issue #23): the `Content-Type` of a body (RFC 9110 §8.3.1) and the
 * media ranges of `Accept` (RFC 9110 §12.5.1). Type, subtype and parameter names are
 * case-insensitive (RFC 9110 §8.3.1); `q` is the weight (§12.4.2), and q=0 means "not acceptable".
 */

import type { AppContext } from "./define.ts";

/** A media type without parameters, lower-cased (`"application/json"`); `""` when none is sent. */
export function mediaTypeEssence(header: string | null | undefined): string {
  if (!header) return "";
  const semicolon = header.indexOf(";");
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

/** The media type of the request body, as `mediaTypeEssence`. */
export function mediaTypeOf(c: AppContext): string {
  return mediaTypeEssence(c.req.header("content-type"));
}

/** Whether a media type is JSON: `application/json` or a `+json` suffix (RFC 6839 §3.1). */
export function isJsonMediaType(type: string): boolean {
  return type === "application/json" || type.endsWith("+json");
}

/** One media range of an `Accept` header and its weight. */
interface MediaRange {
  range: string;
  q: number;
}

/** The ranges of an `Accept` header, in order. A weight that is not a number counts as 0. */
function mediaRanges(accept: string): MediaRange[] {
  return accept.split(",").map((part) => {
    const [range, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    return { range, q: Number.isFinite(value) ? value : 0 };
  });
}

/**
 * The weight `accept` gives `type` (RFC 9110 §12.5.1): that of the most specific range that
 * matches it (`type/subtype` over `type/*` over `*\/*`; the highest among equals); 0 when none does.
 */
export function acceptQuality(accept: string, type: string): number {
  let best = 0;
  let specificity = -1;
  const major = type.slice(0, type.indexOf("/"));
  for (const { range, q } of mediaRanges(accept)) {
    const spec = range === type ? 2 : range === `${major}/*` ? 1 : range === "*/*" ? 0 : -1;
    if (spec < 0 || spec < specificity) continue;
    if (spec > specificity || q > best) best = q;
    specificity = spec;
  }
  return best;
}

/**
 * Whether the request accepts `type` (RFC 9110 §12.5.1): no `Accept` means any type; else the
 * weight it gives `type` must be above 0.
 */
export function accepts(c: AppContext, type: string): boolean {
  const accept = c.req.header("accept");
  return !accept || acceptQuality(accept, type) > 0;
}

/**
 * Whether the request names `type` itself with a weight above 0 — not only through `*\/*` or
 * `text/*`, which every script and `curl` sends. A browser names `text/html`.
 */
export function namesMediaType(c: AppContext, type: string): boolean {
  const accept = c.req.header("accept");
  if (!accept) return false;
  return mediaRanges(accept).some(({ range, q }) => range === type && q > 0);
}
