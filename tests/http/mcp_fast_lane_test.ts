/**
 * The MCP fast lane (lib/http/mcp/mcp_fast_lane.ts) answers exactly as the Hono path does: the same
 * request, sent to the lane function alone and to an app with the lane turned off, gets the same
 * status, the same headers with the same values (only the request id differs) and the same body,
 * for successes, every kind of refusal, deprecation headers, a retired endpoint and a spent quota.
 */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import { manualClock } from "../../lib/foundation/clock.ts";
import type { Deprecation } from "../../lib/policy/deprecation.ts";
import { commonSteps } from "../../lib/http/kernel/common_headers.ts";
import { type FastLane, mcpFastLane } from "../../lib/http/mcp/mcp_fast_lane.ts";
import { registerWithToken } from "./_members.ts";

const DEPRECATED: Deprecation[] = [
  {
    kind: "endpoint",
    target: "/api/sandbox",
    deprecatedAt: "2026-12-01T00:00:00Z",
    successor: "/api/mcp",
    note: "fixture",
  },
  { kind: "tool", target: "get_streak", deprecatedAt: "2026-12-01T00:00:00Z", note: "fixture" },
];

const RETIRED: Deprecation[] = [{
  kind: "endpoint",
  target: "/api/mcp",
  deprecatedAt: "2026-12-01T00:00:00Z",
  sunsetPublishedAt: "2027-03-01T00:00:00Z",
  sunsetAt: "2027-09-01T00:00:00Z",
  note: "fixture",
}];

interface Case {
  name: string;
  path: string;
  body: string;
  headers?: Record<string, string>;
  /** Sends the app's own member token. */
  withToken?: boolean;
}

function rpc(method: string, params?: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 7, method, params });
}

const CALL_STREAK = rpc("tools/call", {
  name: "get_streak",
  arguments: { metric: "meditation_min" },
});

const CASES: Case[] = [
  {
    name: "sandbox tools/call (deprecated endpoint and tool)",
    path: "/api/sandbox",
    body: CALL_STREAK,
  },
  { name: "sandbox tools/list", path: "/api/sandbox", body: rpc("tools/list") },
  {
    name: "sandbox initialize",
    path: "/api/sandbox",
    body: rpc("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    }),
  },
  { name: "/api/v1 alias ping", path: "/api/v1/sandbox", body: rpc("ping") },
  { name: "parse error", path: "/api/sandbox", body: "{not json" },
  {
    name: "wrong media type",
    path: "/api/sandbox",
    body: rpc("ping"),
    headers: { "Content-Type": "text/plain" },
  },
  {
    name: "not acceptable",
    path: "/api/sandbox",
    body: rpc("ping"),
    headers: { Accept: "text/html" },
  },
  {
    name: "foreign Origin",
    path: "/api/sandbox",
    body: rpc("ping"),
    headers: { Origin: "https://evil.example" },
  },
  {
    name: "body over the cap",
    path: "/api/sandbox",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", pad: "x".repeat(300_000) }),
  },
  { name: "member tools/call without a token", path: "/api/mcp", body: CALL_STREAK },
  {
    name: "member tools/call with a bad token",
    path: "/api/mcp",
    body: CALL_STREAK,
    headers: { Authorization: "Bearer rt_ro_nope" },
  },
  {
    name: "member tools/call with the member's token",
    path: "/api/mcp",
    body: rpc("tools/call", { name: "list_columns", arguments: {} }),
    withToken: true,
  },
  { name: "member tools/list", path: "/api/mcp", body: rpc("tools/list") },
];

/** Two apps alike but for the lane: the lane function of one, the Hono path of the other. */
async function pair(deprecations: Deprecation[], now: string) {
  const lane = await makeApp({ clock: manualClock(Date.parse(now)), deprecations });
  const hono = await makeApp({
    clock: manualClock(Date.parse(now)),
    deprecations,
    mcpFastLane: false,
  });
  return { lane, hono, laneFetch: mcpFastLane(commonSteps(lane.app.deps)) };
}

function requestOf(c: Case, token?: string): Request {
  return new Request(`http://localhost${c.path}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...c.headers,
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: c.body,
  });
}

/**
 * Status, headers and body with the two legitimate differences masked: the request id, and the
 * remaining count of a quota far from its limit — there it is each app's own estimate, refreshed
 * from KV in the background (lib/policy/rate_limit.ts), so it depends on when that refresh landed,
 * not on the lane. The 429 step still requires both paths to refuse at the same request.
 */
async function normalised(res: Response) {
  const id = res.headers.get("x-request-id") ?? "";
  assert.match(id, /^[0-9a-f-]{36}$/);
  const masked = (k: string, v: string) => {
    if (k === "x-request-id") return "<id>";
    if (res.status === 429) return v;
    if (k === "ratelimit") return v.replace(/;r=\d+/, ";r=<n>");
    return k === "ratelimit-remaining" ? "<n>" : v;
  };
  const headers = [...res.headers].map(([k, v]) => `${k}: ${masked(k, v)}`);
  return { status: res.status, headers, body: (await res.text()).replaceAll(id, "<id>") };
}

async function assertAlike(
  { laneFetch, hono }: { laneFetch: FastLane; hono: TestApp },
  request: () => Request,
) {
  const viaLane = laneFetch(request(), undefined);
  assert.ok(viaLane, "the lane takes this request");
  const a = await normalised(await viaLane);
  const b = await normalised(await hono.app.request(request()));
  assert.deepEqual(a, b);
  return a;
}

Deno.test("POST /api/mcp and /api/sandbox: the fast lane answers as the Hono path does", async (t) => {
  const p = await pair(DEPRECATED, "2026-12-15T12:00:00Z");
  await using _lane = p.lane;
  await using _hono = p.hono;
  const tokens = {
    lane: (await registerWithToken(p.lane, "alice")).token,
    hono: (await registerWithToken(p.hono, "alice")).token,
  };
  for (const c of CASES) {
    await t.step(c.name, async () => {
      // Each app gets its own member's token; everything else is byte for byte the same.
      const viaLane = p.laneFetch(requestOf(c, c.withToken ? tokens.lane : undefined), undefined);
      assert.ok(viaLane, "the lane takes this request");
      const a = await normalised(await viaLane);
      const req = requestOf(c, c.withToken ? tokens.hono : undefined);
      const b = await normalised(await p.hono.app.request(req));
      assert.deepEqual(a, b);
    });
  }
  await t.step("deprecation headers are on both", async () => {
    const { headers } = await assertAlike(p, () => requestOf(CASES[0]));
    assert.ok(headers.some((h) => h.startsWith("deprecation: ")));
  });
  await t.step("the quota spent: 429 with Retry-After on both", async () => {
    let last = { status: 200, headers: [] as string[] };
    for (let i = 0; i < 200 && last.status !== 429; i++) {
      last = await assertAlike(p, () => requestOf(CASES[3]));
    }
    assert.equal(last.status, 429);
    assert.ok(last.headers.some((h) => h.startsWith("retry-after: ")));
  });
});

Deno.test("POST /api/mcp: a retired endpoint is the same 410 on the lane and the Hono path", async () => {
  const p = await pair(RETIRED, "2027-10-01T00:00:00Z");
  await using _lane = p.lane;
  await using _hono = p.hono;
  const { status, body } = await assertAlike(p, () => requestOf(CASES.at(-1)!));
  assert.equal(status, 410);
  assert.equal(JSON.parse(body).code, "gone");
});

Deno.test("mcpFastLane() takes only POSTs to the four MCP paths", async () => {
  await using a = await makeApp();
  const lane = mcpFastLane(commonSteps(a.app.deps));
  const untaken = [
    new Request("http://localhost/api/mcp", { method: "GET" }),
    new Request("http://localhost/api/mcp", { method: "OPTIONS" }),
    new Request("http://localhost/api/mcp/", { method: "POST", body: "{}" }),
    new Request("http://localhost/api/%6dcp", { method: "POST", body: "{}" }),
    new Request("http://localhost/api/proxy", { method: "POST", body: "{}" }),
  ];
  for (const r of untaken) assert.equal(lane(r, undefined), undefined, `${r.method} ${r.url}`);
  for (const path of ["/api/mcp", "/api/v1/mcp", "/api/sandbox", "/api/v1/sandbox"]) {
    const res = lane(
      new Request(`http://localhost${path}`, { method: "POST", body: "{}" }),
      undefined,
    );
    assert.ok(res, path);
    await (await res).body?.cancel();
  }
});
