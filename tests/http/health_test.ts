import assert from "node:assert/strict";
import { jsonPost, makeApp } from "../_helpers.ts";
import { SERVICE_VERSION } from "../../lib/foundation/config.ts";
import { openLimitedKv } from "../_kv_limits.ts";

Deno.test("POST /api/proxy healthCheck", async (t) => {
  await using a = await makeApp();
  a.clock.set(Date.parse("2026-11-22T10:00:00Z"));

  await t.step("answers the four fields with no credential", async () => {
    const res = await a.request("/api/proxy", jsonPost({ action: "healthCheck" }));
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /application\/json/);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), ["denoKv", "status", "timestamp", "version"]);
    assert.equal(body.status, "healthy");
    assert.equal(body.denoKv, "connected");
    assert.equal(body.version, SERVICE_VERSION);
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.equal(body.timestamp, "2026-11-22T10:00:00.000Z");
  });

  await t.step("spends the proxy quota keyed by IP", async () => {
    const res = await a.request("/api/proxy", jsonPost({ action: "healthCheck" }));
    await res.body?.cancel();
    assert.equal(res.headers.get("ratelimit-policy"), '"proxy";q=300;w=60');
    assert.match(res.headers.get("ratelimit") ?? "", /^"proxy";r=\d+;t=\d+$/);
  });

  await t.step("reports 503 unhealthy when KV is unreachable", async () => {
    const kv = await openLimitedKv();
    await using broken = await makeApp({ kv });
    kv.close();
    const res = await broken.request("/api/proxy", jsonPost({ action: "healthCheck" }));
    assert.equal(res.status, 503);
    const body = await res.json();
    assert.equal(body.status, "unhealthy");
    assert.equal(body.denoKv, "disconnected");
  });

  await t.step("other actions answer 401 without a credential", async () => {
    const res = await a.request("/api/proxy", jsonPost({ action: "getProfile" }));
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "unauthorized");
  });
});
