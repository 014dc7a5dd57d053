/**
 * The middleware every request passes through once: request id, client IP, CORS, the headers
 * every response carries (DESIGN §4; security headers by content type), the `public` rate limit
 * for non-API paths, and endpoint deprecation (DESIGN §12). One middleware rather than several
 * keeps the hot path short.
 */

import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { API_VERSION } from "../../foundation/config.ts";
import type { AppDeps } from "./deps.ts";
import { clientIpOf } from "./client_ip.ts";
import { applyDeprecation, writeDeprecationHeaders } from "./deprecation.ts";
import type { AppContext, AppEnv } from "./define.ts";
import { errorResponse } from "./errors.ts";
import {
  defaultPolicyForPath,
  enforceRateLimit,
  policyHeaderValue,
  writeRateLimitHeaders,
} from "./rate_limit.ts";
import { writeSecurityHeaders } from "./security_headers.ts";
import { metrics } from "../../foundation/metrics.ts";

/** Headers a browser script may read (DESIGN §4). */
export const EXPOSED_HEADERS = [
  "Api-Version",
  "Link",
  "RateLimit",
  "RateLimit-Policy",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
  "Deprecation",
  "Sunset",
  "WWW-Authenticate",
  "X-Request-Id",
  "Mcp-Session-Id",
  "MCP-Protocol-Version",
  "X-Data-Synthetic",
].join(", ");

const ALLOWED_REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "MCP-Protocol-Version",
  "Mcp-Session-Id",
  "Mcp-Method",
  "Mcp-Name",
  "Last-Event-ID",
  "X-Request-Id",
  // a browser client's retried write (saveEntry, skipDay: docs/data-api "saveEntry")
  "Idempotency-Key",
].join(", ");

/**
 * The consent screen gets no CORS at all, so no other origin can read it (or its CSRF token)
 * with the member's cookie. Everything else answers `*` without credentials, which a browser
 * never combines with cookies (Fetch standard, CORS check), so the web app's pages stay unreadable
 * cross-origin too.
 */
function isCorsPath(path: string): boolean {
  return !path.startsWith("/api/oauth/authorize");
}

/** Strips the `/api/v1` alias so the deprecation registry names each endpoint once. */
export function canonicalPath(path: string): string {
  return path.startsWith("/api/v1/") ? "/api/" + path.slice(8) : path;
}

/** The steps every response takes, built once per app and run by the Hono middleware below. */
export interface CommonSteps {
  /** Request id, the app's dependencies and the client address (DESIGN §4, §6). */
  begin(c: AppContext): void;
  /**
   * Endpoint deprecation, the `public` quota off `/api/`, then `handle`; anything thrown becomes
   * the error envelope. Returns what `handle` answered, or that envelope.
   */
  serve<A>(c: AppContext, path: string, handle: () => Promise<A>): Promise<A | Response>;
  /**
   * The deprecation headers, the headers every response carries, CORS on bearer paths, and the
   * RateLimit fields, written into the answer's headers.
   */
  finish(c: AppContext, headers: Headers, path: string): void;
  /** Metrics and the request log line, under the route pattern that answered (lib/foundation/log.ts). */
  observe(c: AppContext, status: number, route: string): void;
}

/** Builds the common steps for an app built from `deps`. */
export function commonSteps(deps: AppDeps): CommonSteps {
  const base = deps.config.baseUrl;
  const link = `<${base}/openapi.json>; rel="service-desc"; type="application/openapi+json", ` +
    `<${base}/api>; rel="service-doc", <${base}/docs/versioning>; rel="version-history"`;
  const multiplier = deps.config.rateLimitMultiplier;
  const policyHeaders = new Map<string, string>();

  return {
    begin(c) {
      c.set("startedAt", performance.now());
      c.set("deps", deps);
      c.set("requestId", crypto.randomUUID());
      c.set("clientIp", clientIpOf(c, deps.config.trustProxy));
    },
    async serve(c, path, handle) {
      try {
        applyDeprecation(c, "endpoint", canonicalPath(path));
        if (!path.startsWith("/api/")) {
          await enforceRateLimit(c, "public", c.get("clientIp"));
        }
        return await handle();
      } catch (err) {
        return errorResponse(c, err);
      }
    },
    finish(c, h, path) {
      writeDeprecationHeaders(c, h);
      writeSecurityHeaders(h);
      h.set("Api-Version", API_VERSION);
      h.append("Link", link);
      h.set("X-Request-Id", c.get("requestId"));
      if (isCorsPath(path)) {
        h.set("Access-Control-Allow-Origin", "*");
        h.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
      }
      const outcome = c.get("rateLimit");
      const policy = outcome?.policy ?? defaultPolicyForPath(path);
      let policyHeader = policyHeaders.get(policy);
      if (policyHeader === undefined) {
        policyHeader = policyHeaderValue(policy, multiplier);
        policyHeaders.set(policy, policyHeader);
      }
      h.set("RateLimit-Policy", policyHeader);
      if (outcome) writeRateLimitHeaders(h, outcome);
    },
    observe(c, status, route) {
      observe({ c, deps, status, route });
    },
  };
}

/** The common middleware: CORS preflights here, every other request through `steps`. */
export function commonMiddleware(steps: CommonSteps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    steps.begin(c);
    const path = c.req.path;
    if (c.req.method === "OPTIONS" && isCorsPath(path)) {
      // CORS preflight: bearer APIs allow any origin and never credentials (DESIGN §4).
      c.res = new Response(null, { status: 204 });
      c.res.headers.set("Access-Control-Allow-Methods", "GET, HEAD, POST, DELETE, OPTIONS");
      c.res.headers.set("Access-Control-Allow-Headers", ALLOWED_REQUEST_HEADERS);
      c.res.headers.set("Access-Control-Max-Age", "86400");
    } else {
      const res = await steps.serve(c, path, async () => {
        await next();
        return c.res;
      });
      // Only an error envelope replaces the handler's response (Hono merges headers on assignment).
      if (res !== c.res) c.res = res;
    }
    steps.finish(c, c.res.headers, path);
    steps.observe(c, c.res.status, honoRouteOf(c));
  };
}

/**
 * The route pattern that answered (`/docs/:slug`), never the raw path, which may carry a code or
 * a token; `unmatched` for a 404. It is the first route after the middleware: routes are
 * registered most specific first (manifest.gen.ts), so that is the one Hono dispatched to, even
 * when a catch-all (`/app/:path{.+}`) also matches and comes later in the list (issue #19: the
 * last match counted `/app/history` under the catch-all).
 */
function honoRouteOf(c: AppContext): string {
  for (const { path } of matchedRoutes(c)) {
    if (path !== "*" && path !== "/*" && path !== "") return path;
  }
  return "unmatched";
}

/**
 * Counts and logs the answered request under its route pattern. The abort flag is what the
 * service can know: a client that hung up while its request body was being read (lib/http/kernel/body.ts
 * sets `clientAborted`). A client that leaves after the answer is handed over cannot be seen on
 * Deno 2.9: `info.completed` resolves even when the client dropped mid-response (measured with a
 * streamed body), and `request.signal` also aborts on success under its legacy behaviour.
 */
function observe(
  { c, deps, status, route }: { c: AppContext; deps: AppDeps; status: number; route: string },
): void {
  const ms = performance.now() - c.get("startedAt");
  metrics.observeRequest(route, c.req.method, status, ms / 1000);
  deps.requestLog?.request({
    requestId: c.get("requestId"),
    method: c.req.method,
    route,
    status,
    durationMs: Math.round(ms * 10) / 10,
    aborted: c.get("clientAborted") === true,
  }, c.get("memberId"));
}
