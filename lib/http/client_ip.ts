/** Client address for IP-keyed rate limits (DESIGN §6). */

import type { AppContext } from "./define.ts";

/**
 * The socket's address, or with `TRUST_PROXY=1` the right-most `X-Forwarded-For` hop (the one our
 * own proxy appended; hops to its left are client-supplied and spoofable).
 */
export function clientIpOf(c: AppContext, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for");
    if (forwarded) {
      const hops = forwarded.split(",").map((h) => h.trim()).filter(Boolean);
      if (hops.length > 0) return hops[hops.length - 1];
    }
  }
  return c.env?.remoteAddr?.hostname ?? "unknown";
}
