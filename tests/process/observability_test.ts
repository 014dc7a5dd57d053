/**
 * Logs and metrics of a real service process (issue #14): one JSON line per request with no
 * token, password, code, health value or raw member id in it; `/metrics` refused without the
 * operator token and a valid Prometheus text exposition with it.
 */

import assert from "node:assert/strict";
import { startProcesses } from "../_processes.ts";
import { post, proxy, registerWithToken, toolCall } from "../http/_members.ts";
import { parseExposition } from "./_exposition.ts";

const METRICS_TOKEN = "operator-secret-4c1d9e";
const PASSWORD = "a long passphrase";
/** A value nobody would log by accident: if it shows up, the health value leaked. */
const HEALTH_VALUE = 73.418;
const SECRET_CODE = "QmFkQ29kZVNlY3JldA";

/** Every UUID stored in the KV file (member ids among them). */
async function storedIds(kvPath: string): Promise<Set<string>> {
  const kv = await Deno.openKv(kvPath);
  try {
    const ids = new Set<string>();
    for await (const e of kv.list({ prefix: [] })) {
      const text = JSON.stringify(e.key) +
        JSON.stringify(e.value, (_k, v) => typeof v === "bigint" ? String(v) : v);
      for (
        const m of text.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)
      ) {
        ids.add(m[0]);
      }
    }
    return ids;
  } finally {
    kv.close();
  }
}

async function get(url: string, bearer?: string): Promise<Response> {
  return await fetch(url, { headers: bearer ? { Authorization: `Bearer ${bearer}` } : {} });
}

/** Waits until the process has written `n` request lines (they are flushed every 10 ms). */
async function requestLines(output: () => string, n: number): Promise<Record<string, unknown>[]> {
  for (let i = 0; i < 100; i++) {
    const lines = output().split("\n").filter((l) => l.includes('"msg":"request"'));
    if (lines.length >= n) return lines.map((l) => JSON.parse(l));
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${n} request lines:\n${output()}`);
}

Deno.test("GET /metrics and the request log of a real process", async (t) => {
  await using p = await startProcesses({
    count: 1,
    // No debounce: the entry's write makes a coach run due at once (polled every second), for the counter.
    env: {
      METRICS_TOKEN,
      LOG_SALT: "test-salt",
      COACH_DEBOUNCE_MINUTES: "0",
      COACH_POLL_SECONDS: "1",
    },
  });
  const url = p.urls[0];
  const member = await registerWithToken(url, "logged_member");
  await proxy(url, member, {
    action: "createColumn",
    key: "weight",
    label: "Weight",
    type: "number",
    unit: "kg",
    direction: "lower_better",
  });
  await proxy(url, member, {
    action: "saveEntry",
    date: "2026-11-20",
    values: { weight: HEALTH_VALUE },
    note: "felt dizzy",
  });
  const tool = await post(url, "/api/mcp", toolCall("get_entries", {}), member.token);
  assert.equal(tool.status, 200);
  const login = await post(url, "/api/auth", {
    action: "login",
    username: member.username,
    password: PASSWORD,
  });
  assert.equal(login.status, 200);
  // The web app's sign-in form: the password travels in a form body, the session in a cookie.
  const signin = await fetch(`${url}/signin`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: url },
    body: new URLSearchParams({ username: member.username, password: PASSWORD }),
    redirect: "manual",
  });
  await signin.body?.cancel();
  const cookie = (signin.headers.get("set-cookie") ?? "").split(";")[0];
  assert.match(cookie, /^rt_session=/);
  const today = await fetch(`${url}/app`, { headers: { Cookie: cookie } });
  assert.equal(today.status, 200);
  await today.text();
  await (await get(`${url}/docs/mcp?code=${SECRET_CODE}&access_token=${member.token}`)).text();
  await (await get(`${url}/no/such/${member.token}`)).text();
  const health = await post(url, "/api/proxy", { action: "healthCheck" });
  assert.equal(health.status, 200);

  await t.step("GET /metrics answers 401 without the operator token", async () => {
    for (const bearer of [undefined, "wrong-token", member.token, member.sessionToken]) {
      const res = await get(`${url}/metrics`, bearer);
      await res.body?.cancel();
      assert.equal(res.status, 401, `bearer ${bearer}`);
    }
  });

  await t.step("GET /metrics is a valid exposition with the operator token", async () => {
    const res = await get(`${url}/metrics`, METRICS_TOKEN);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const families = parseExposition(await res.text());
    const requests = families.get("routine_tracker_http_requests_total");
    assert.equal(requests?.type, "counter");
    const mcp = requests?.samples.find((s) =>
      s.labels.route === "/api/mcp" && s.labels.method === "POST" && s.labels.status === "200"
    );
    assert.ok(mcp && mcp.value >= 1, "the tools/call is counted under its route pattern");
    assert.ok(requests?.samples.some((s) => s.labels.route === "unmatched"));
    assert.ok(!requests?.samples.some((s) => JSON.stringify(s).includes(member.token)));
    const latency = families.get("routine_tracker_http_request_duration_seconds");
    assert.equal(latency?.type, "histogram");
    const inf = latency?.samples.find((s) =>
      s.name.endsWith("_bucket") && s.labels.route === "/api/auth" && s.labels.le === "+Inf"
    );
    const count = latency?.samples.find((s) =>
      s.name.endsWith("_count") && s.labels.route === "/api/auth"
    );
    assert.ok(inf && count && inf.value === count.value && count.value >= 2);
    for (
      const name of [
        "routine_tracker_rate_limit_rejections_total",
        "routine_tracker_kv_retries_total",
        "routine_tracker_kv_errors_total",
        "routine_tracker_coach_runs_total",
      ]
    ) assert.equal(families.get(name)?.type, "counter", name);
  });

  await t.step("GET /metrics counts the coach run the write made due", async () => {
    let ran: number | undefined;
    for (let i = 0; i < 200 && !ran; i++) {
      const res = await get(`${url}/metrics`, METRICS_TOKEN);
      const families = parseExposition(await res.text());
      ran = families.get("routine_tracker_coach_runs_total")?.samples
        .find((s) => s.labels.outcome === "ran")?.value;
      if (!ran) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(ran && ran >= 1, "a coach run is counted with its outcome");
  });

  await t.step("POST /api/proxy healthCheck adds per-check detail for the operator", async () => {
    const anyone = await post(url, "/api/proxy", { action: "healthCheck" });
    assert.deepEqual(Object.keys(anyone.body).sort(), ["denoKv", "status", "timestamp", "version"]);
    const operator = await post(url, "/api/proxy", { action: "healthCheck" }, METRICS_TOKEN);
    assert.equal(operator.status, 200);
    assert.deepEqual(operator.body.checks, {
      kvWrite: "ok",
      kvRead: "ok",
      kvDelete: "ok",
      coachWorker: "running",
    });
  });

  await t.step("every request is one JSON line with no secret or value in it", async () => {
    const lines = await requestLines(() => p.output(0), 14);
    for (const line of lines) {
      assert.deepEqual(Object.keys(line).sort(), [
        "aborted",
        "durationMs",
        "level",
        "member",
        "method",
        "msg",
        "requestId",
        "route",
        "status",
        "time",
      ]);
      assert.equal(typeof line.durationMs, "number");
      assert.match(line.requestId as string, /^[0-9a-f-]{36}$/);
    }
    const tool = lines.find((l) => l.route === "/api/mcp" && l.status === 200);
    assert.match(String(tool?.member), /^[0-9a-f]{16}$/, "the member is hashed");
    const save = lines.filter((l) => l.route === "/api/proxy" && l.member !== null);
    assert.ok(save.every((l) => l.member === tool?.member), "one member, one hash");
    assert.ok(lines.some((l) => l.route === "/docs/:slug"), "the route pattern, not the path");
    const page = lines.find((l) => l.route === "/app" && l.status === 200);
    assert.equal(page?.member, tool?.member, "a cookie session's page is hashed the same");

    const output = p.output(0);
    // Deno's own start-up hint (README "Several instances") is the runtime's, not the service's.
    const ours = output.split("\n").filter((l) => l.trim() && !l.startsWith("warning: Detected"));
    for (const line of ours) {
      assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
    }
    const forbidden = [
      member.token,
      member.sessionToken,
      login.body.sessionToken as string,
      PASSWORD,
      SECRET_CODE,
      String(HEALTH_VALUE),
      "felt dizzy",
      METRICS_TOKEN,
      cookie.slice("rt_session=".length),
      "/no/such",
      ...await storedIds(p.kvPath),
    ];
    for (const secret of forbidden) {
      assert.ok(!output.includes(secret), `the log contains ${secret}`);
    }
  });
});
