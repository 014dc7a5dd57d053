/**
 * The benchmark's "bare + required work": a bare `Deno.serve` doing only what any server of this
 * tool must do per call — parse the JSON-RPC body, answer the same ~3 kB `tools/call` result
 * (the same tool over the same synthetic member, computed per request as in
 * reference/perf-anchors.md) and send the same set of headers the service sends (the request id
 * fresh each time, the rest fixed). What the service adds on top is its own cost.
 */

import { syntheticMember } from "../../lib/sandbox/synthetic_member.ts";
import { runTool } from "../../lib/tools/run_tool.ts";
import { asciiJson } from "../../lib/mcp/serialize.ts";

const FIXED_HEADERS: [string, string][] = [
  ["access-control-allow-origin", "*"],
  [
    "access-control-expose-headers",
    "Api-Version, Link, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, " +
    "RateLimit-Reset, Retry-After, Deprecation, Sunset, WWW-Authenticate, X-Request-Id, " +
    "Mcp-Session-Id, MCP-Protocol-Version, X-Data-Synthetic",
  ],
  ["api-version", "2026-08-22"],
  ["content-type", "application/json"],
  [
    "link",
    '<http://localhost:8000/openapi.json>; rel="service-desc"; type="application/openapi+json", ' +
    '<http://localhost:8000/api>; rel="service-doc", ' +
    '<http://localhost:8000/docs/versioning>; rel="version-history"',
  ],
  ["ratelimit", '"sandbox";r=119;t=60'],
  ["ratelimit-limit", "120"],
  ["ratelimit-policy", '"sandbox";q=120;w=60'],
  ["ratelimit-remaining", "119"],
  ["ratelimit-reset", "60"],
  ["x-content-type-options", "nosniff"],
  ["x-data-synthetic", "true"],
];

/** The `tools/call` result of the message's tool, serialised as the service sends it. */
function resultOf(message: { params: { name: string; arguments: unknown } }): string {
  const { name, arguments: args } = message.params;
  const outcome = runTool(syntheticMember(), name, args as Record<string, unknown>);
  if (outcome.kind !== "result") throw new Error(`bench tool call failed: ${outcome.kind}`);
  const text = JSON.stringify(outcome.structured);
  const content = `[{"type":"text","text":${JSON.stringify(text)}}]`;
  return `{"content":${content},"structuredContent":${text},"isError":false,` +
    `"_meta":{"routine-tracker/synthetic":true}}`;
}

/**
 * `PRECOMPUTED=1`: the floor of any server of this tool — the answer computed once (and kept as
 * ASCII JSON, the body Deno sends fastest, as the service keeps it: lib/mcp/serialize.ts), each
 * request only parsed and answered with the same headers. No server doing per-request work
 * (credential, quota, log line) can beat it, so it bounds what the SDK ratio can reach.
 */
const precomputed = Deno.env.get("PRECOMPUTED") === "1";
let cached: string | undefined;

Deno.serve(
  { port: Number(Deno.env.get("PORT") ?? 18003), hostname: "127.0.0.1", onListen: () => {} },
  async (req) => {
    const message = JSON.parse(await req.text());
    const result = precomputed ? (cached ??= asciiJson(resultOf(message))) : resultOf(message);
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result}}`;
    const headers = new Headers(FIXED_HEADERS);
    headers.set("x-request-id", crypto.randomUUID());
    return new Response(body, { headers });
  },
);
