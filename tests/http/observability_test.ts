/**
 * In-process checks of the operator surface (issue #14): `/metrics` is off without
 * `METRICS_TOKEN`; `LOG_FORMAT=text` writes one readable line per request; the health check
 * names the failed dependency to the operator. The real-process checks are in
 * tests/process/observability_test.ts.
 */

import assert from "node:assert/strict";
import { createApp } from "../../main.ts";
import { manualClock } from "../../lib/foundation/clock.ts";
import { testConfig } from "../../lib/foundation/config.ts";
import { LineWriter, RequestLog } from "../../lib/foundation/log.ts";
import { escapeLabel, metrics } from "../../lib/foundation/metrics.ts";
import { routes } from "../../manifest.gen.ts";
import { signedUpBrowser } from "./_web.ts";
import { jsonPost, makeApp } from "../_helpers.ts";
import { openLimitedKv } from "../_kv_limits.ts";

const TOKEN = "operator-token-for-tests";

Deno.test("GET /metrics", async (t) => {
  await t.step("answers 404 when METRICS_TOKEN is not set, even with a bearer", async () => {
    await using a = await makeApp();
    for (const headers of [{}, { Authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
      const res = await a.request("/metrics", { headers });
      assert.equal(res.status, 404);
      assert.equal((await res.json()).code, "not_found");
    }
  });

  await t.step("answers 401 to a wrong token and 200 to the right one", async () => {
    await using a = await makeApp({ config: { metricsToken: TOKEN } });
    const wrong = await a.request("/metrics", { headers: { Authorization: `Bearer ${TOKEN}x` } });
    assert.equal(wrong.status, 401);
    assert.equal((await wrong.json()).code, "unauthorized");
    const ok = await a.request("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("cache-control"), "no-store");
    assert.match(await ok.text(), /^# HELP routine_tracker_info /);
  });
});

Deno.test("logging: LOG_FORMAT=text writes one readable line per request", async () => {
  const lines: string[] = [];
  const decoder = new TextDecoder();
  const writer = new LineWriter((bytes) =>
    lines.push(...decoder.decode(bytes).trimEnd().split("\n"))
  );
  const kv = await openLimitedKv();
  const app = createApp({
    kv,
    clock: manualClock(),
    config: testConfig({ logFormat: "text" }),
    requestLog: new RequestLog({ format: "text", salt: "s", writer }),
  });
  try {
    const res = await app.request("/docs/mcp?code=SECRET123");
    await res.body?.cancel();
    const missing = await app.request("/nope/rt_ro_secret");
    await missing.body?.cancel();
    writer.flush();
    assert.equal(lines.length, 2, lines.join("\n"));
    assert.match(
      lines[0],
      /^\d{4}-\d\d-\d\dT[\d:.]+Z [0-9a-f-]{36} GET \/docs\/:slug 200 [\d.]+ms$/,
    );
    assert.match(lines[1], / GET unmatched 404 [\d.]+ms$/);
    assert.ok(!lines.join("\n").includes("SECRET123") && !lines.join("\n").includes("rt_ro_"));
  } finally {
    await app.close();
    kv.close();
  }
});

Deno.test("POST /api/proxy healthCheck names the failed dependency to the operator", async () => {
  const kv = await openLimitedKv();
  await using broken = await makeApp({ kv, config: { metricsToken: TOKEN } });
  kv.close();
  const anyone = await broken.request("/api/proxy", jsonPost({ action: "healthCheck" }));
  assert.equal(anyone.status, 503);
  assert.equal((await anyone.json()).checks, undefined);
  const operator = await broken.request(
    "/api/proxy",
    jsonPost({ action: "healthCheck" }, { Authorization: `Bearer ${TOKEN}` }),
  );
  assert.equal(operator.status, 503);
  const body = await operator.json();
  assert.equal(body.denoKv, "disconnected");
  assert.deepEqual(body.checks, {
    kvWrite: "failed",
    kvRead: "skipped",
    kvDelete: "skipped",
    coachWorker: "not_started",
  });
});

Deno.test("GET /metrics counts rate-limit rejections by quota", async () => {
  // A tiny multiplier leaves every quota at one request a window.
  await using a = await makeApp({ config: { metricsToken: TOKEN, rateLimitMultiplier: 0.0001 } });
  const statuses = [];
  for (let i = 0; i < 2; i++) {
    const res = await a.request("/docs/mcp");
    await res.body?.cancel();
    statuses.push(res.status);
  }
  assert.deepEqual(statuses, [200, 429]);
  const text = metrics.render("0.0.0");
  assert.match(text, /^routine_tracker_rate_limit_rejections_total\{policy="public"\} [1-9]\d*$/m);
  assert.match(
    text,
    /^routine_tracker_http_requests_total\{route="\/docs\/:slug",method="GET",status="429"\} [1-9]/m,
  );
});

/** The count of `routine_tracker_http_requests_total` for a route and method, any status. */
function requestsOf(route: string, method = "GET"): number {
  let total = 0;
  const label = `{route="${escapeLabel(route)}",method="${method}",`;
  for (const line of metrics.render("0.0.0").split("\n")) {
    if (line.startsWith(`routine_tracker_http_requests_total${label}`)) {
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return total;
}

Deno.test("GET /metrics labels every page by its own route, not a catch-all that also matches", async (t) => {
  await using a = await makeApp({ config: { metricsToken: TOKEN } });
  const member = await signedUpBrowser(a, "metrics");
  const statics = routes.filter((r) => !r.path.includes(":") && r.module.handler.GET);

  await t.step("each static GET route, signed in, counts under its own path", async () => {
    for (const { path } of statics) {
      const before = requestsOf(path);
      const res = await member.get(path);
      assert.ok(res.status < 500, `${path}: ${res.status}`);
      assert.equal(requestsOf(path), before + 1, `${path} counted under its own route`);
    }
  });
  await t.step(
    "/app/history, /app/settings and /app/columns never count as /app/:path{.+}",
    async () => {
      const catchAll = "/app/:path{.+}";
      const before = requestsOf(catchAll);
      for (const path of ["/app/history", "/app/settings", "/app/columns", "/app/insights"]) {
        assert.equal((await member.get(path)).status, 200, path);
      }
      assert.equal(requestsOf(catchAll), before, "the catch-all counted none of them");
      assert.equal((await member.get("/app/no-such-page")).status, 404);
      assert.equal(requestsOf(catchAll), before + 1, "an unknown /app page is the catch-all's");
    },
  );
  await t.step("a method the path does not serve counts under that path too", async () => {
    const before = requestsOf("/app/history", "DELETE");
    const res = await a.request("/app/history", { method: "DELETE" });
    assert.equal(res.status, 405);
    assert.equal(requestsOf("/app/history", "DELETE"), before + 1);
  });
});
