import assert from "node:assert/strict";
import { jsonPost, makeApp } from "../_helpers.ts";

const BASE = "http://localhost:8000";

Deno.test("common headers: every response carries the common headers (DESIGN §4)", async (t) => {
  await using t_ = await makeApp();
  const paths: [string, RequestInit | undefined][] = [
    ["/docs/mcp", undefined],
    ["/no/such/path", undefined],
    ["/api/proxy", jsonPost({ action: "healthCheck" })],
    ["/api/sandbox", jsonPost({ jsonrpc: "2.0", id: 1, method: "ping" })],
  ];
  for (const [path, init] of paths) {
    await t.step(`${init?.method ?? "GET"} ${path}`, async () => {
      const res = await t_.request(path, init);
      await res.body?.cancel();
      assert.equal(res.headers.get("api-version"), "2026-08-22");
      const link = res.headers.get("link") ?? "";
      assert.match(link, new RegExp(`<${BASE}/openapi.json>; rel="service-desc"`));
      assert.match(link, new RegExp(`<${BASE}/api>; rel="service-doc"`));
      assert.match(link, new RegExp(`<${BASE}/docs/versioning>; rel="version-history"`));
      assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
      assert.match(res.headers.get("ratelimit-policy") ?? "", /^"[a-z-]+";q=\d+;w=\d+$/);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      const exposed = (res.headers.get("access-control-expose-headers") ?? "").split(/,\s*/);
      for (
        const h of [
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
        ]
      ) assert.ok(exposed.includes(h), `${h} is exposed`);
    });
  }
});

Deno.test("common headers: unknown paths get the error envelope with the request id", async () => {
  await using t = await makeApp();
  const res = await t.request("/api/nothing-here");
  assert.equal(res.status, 404);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  const body = await res.json();
  assert.equal(body.code, "not_found");
  assert.equal(typeof body.error, "string");
  assert.equal(body.requestId, res.headers.get("x-request-id"));
});

Deno.test("common headers: a known path with the wrong method is 405 with Allow", async () => {
  await using t = await makeApp();
  const res = await t.request("/api/proxy", { method: "GET" });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "POST");
  const body = await res.json();
  assert.equal(body.code, "method_not_allowed");
});

Deno.test("common headers: /api/v1/* reaches the same handlers as /api/*", async () => {
  await using t = await makeApp();
  const a = await (await t.request("/api/proxy", jsonPost({ action: "healthCheck" }))).json();
  const b = await (await t.request("/api/v1/proxy", jsonPost({ action: "healthCheck" }))).json();
  assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort());
  assert.equal(b.status, "healthy");
  const mcp = await t.request(
    "/api/v1/sandbox",
    jsonPost({ jsonrpc: "2.0", id: 7, method: "ping" }),
  );
  assert.equal(mcp.status, 200);
  assert.equal((await mcp.json()).id, 7);
});

Deno.test("common headers: CORS preflight answers 204 with the allowed headers", async () => {
  await using t = await makeApp();
  const res = await t.request("/api/mcp", {
    method: "OPTIONS",
    headers: {
      Origin: "https://app.example",
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
    },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
  for (const h of ["authorization", "content-type", "mcp-protocol-version"]) {
    assert.ok(allowed.includes(h), h);
  }
  assert.equal(res.headers.get("access-control-allow-credentials"), null);
});

Deno.test("common headers: bad JSON bodies get 4xx envelopes with stable codes, never 500", async (t) => {
  await using a = await makeApp();
  const cases: [string, RequestInit, number, string][] = [
    ["malformed JSON", jsonPost("{nope"), 400, "invalid_json"],
    [
      "wrong content type",
      {
        method: "POST",
        body: "action=healthCheck",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      },
      415,
      "unsupported_media_type",
    ],
    ["missing action", jsonPost({}), 400, "invalid_request"],
    ["action of the wrong type", jsonPost({ action: 42 }), 400, "invalid_request"],
    [
      "huge body",
      jsonPost({ action: "healthCheck", pad: "x".repeat(8_000_000) }),
      413,
      "payload_too_large",
    ],
    ["a JSON array", jsonPost([1, 2]), 400, "invalid_request"],
  ];
  for (const [name, init, status, code] of cases) {
    await t.step(name, async () => {
      const res = await a.request("/api/proxy", init);
      assert.equal(res.status, status);
      const body = await res.json();
      assert.equal(body.code, code);
      assert.equal(body.requestId, res.headers.get("x-request-id"));
      assert.ok(!JSON.stringify(body).includes("    at "), "no stack trace");
    });
  }
});
