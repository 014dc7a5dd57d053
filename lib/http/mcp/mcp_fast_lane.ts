/**
 * The MCP fast lane (issue #13): `POST /api/mcp` and `POST /api/sandbox` (and their `/api/v1`
 * aliases) are the service's hot path, so they skip Hono's router and middleware composition —
 * measurable at tens of µs per request (reference/perf-anchors.md) — and nothing else. The lane
 * builds the same Hono `Context` the router would, then runs the very same functions: the common
 * steps (request id, client address, endpoint deprecation, the error envelope, every common
 * header: lib/http/kernel/common_headers.ts) around the same MCP transport handler (`answerMcp`: Host and
 * Origin checks, media types, body cap, credential, quotas, the engine). Every other method and
 * path, CORS preflights included, goes through Hono.
 */

import { Context } from "hono";
import type { CommonSteps } from "../kernel/common_headers.ts";
import type { AppEnv } from "../kernel/define.ts";
import { answerMcp, mcpResponse } from "./mcp_transport.ts";

const LANE: ReadonlyMap<string, "mcp" | "sandbox"> = new Map([
  ["/api/mcp", "mcp"],
  ["/api/v1/mcp", "mcp"],
  ["/api/sandbox", "sandbox"],
  ["/api/v1/sandbox", "sandbox"],
]);

/**
 * The path of an absolute request URL, or null when it is not plain (percent-escapes are left to
 * Hono's decoding, so the lane never sees a path Hono would read differently).
 */
function plainPathOf(url: string): string | null {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start === -1) return null;
  const query = url.indexOf("?", start);
  const path = query === -1 ? url.slice(start) : url.slice(start, query);
  return path.includes("%") ? null : path;
}

/** A request handler for the lane, or `undefined` for a request the lane does not take. */
export type FastLane = (
  request: Request,
  env: AppEnv["Bindings"],
) => Promise<Response> | undefined;

/** Builds the lane over the app's common steps. */
export function mcpFastLane(steps: CommonSteps): FastLane {
  return (request, env) => {
    if (request.method !== "POST") return undefined;
    const path = plainPathOf(request.url);
    const endpoint = path === null ? undefined : LANE.get(path);
    if (endpoint === undefined || path === null) return undefined;
    return serveOnLane({ steps, request, env, path, endpoint });
  };
}

async function serveOnLane(
  { steps, request, env, path, endpoint }: {
    steps: CommonSteps;
    request: Request;
    env: AppEnv["Bindings"];
    path: string;
    endpoint: "mcp" | "sandbox";
  },
): Promise<Response> {
  const c = new Context<AppEnv>(request, { env, path });
  steps.begin(c);
  const answer = await steps.serve(c, path, () => answerMcp(c, endpoint));
  // The common headers go in before the Response is built: Deno sends a Response whose headers
  // were never touched after construction by a cheaper path than one it must re-read.
  steps.finish(c, answer.headers, path);
  const res = answer instanceof Response ? answer : mcpResponse(answer);
  // The lane's paths are static routes, so the path is the pattern Hono would have matched.
  steps.observe(c, res.status, path);
  return res;
}
