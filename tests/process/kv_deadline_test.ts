/**
 * Deadlines on a remote KV (issue #21, "Deadlines"): a real service process on `KV_URL=http://…`,
 * through Deno's real KV Connect client, against the KV Connect test server. With the server in
 * outage (every call answered 503, which Deno's client retries without end), every kind of request
 * is answered within the deadline with 503 and Retry-After; once the outage ends, the service
 * resumes by itself and nothing acknowledged before is lost.
 */

import assert from "node:assert/strict";
import { startProcesses } from "../_processes.ts";
import { kvConnectEnv, startKvConnectServer } from "../kv_connect/server.ts";
import { post, proxy, registerWithToken, toolCall } from "../http/_members.ts";

// Long enough that a healthy call on a loaded CI machine (2 cores, many test files at once) stays
// inside it: one slow call trips the breaker and answers 503 until some call completes.
const DEADLINE_MS = 1_500;
/** One deadline, plus room for a loaded machine (2 cores, several test runs). */
const ANSWERED_WITHIN_MS = DEADLINE_MS + 1_000;

/** Sends a request and measures how long it took; a hang is cut at 15 s and fails the test. */
async function timed(
  url: string,
  init: RequestInit,
): Promise<{ res: Response; body: string; ms: number }> {
  const start = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const body = await res.text();
  return { res, body, ms: performance.now() - start };
}

function json(body: unknown, bearer?: string): RequestInit {
  return {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify(body),
  };
}

function assertBusy(
  what: string,
  { res, ms }: { res: Response; ms: number },
): void {
  assert.equal(res.status, 503, `${what}: status`);
  assert.match(res.headers.get("retry-after") ?? "", /^[1-9]\d*$/, `${what}: Retry-After`);
  assert.ok(ms < ANSWERED_WITHIN_MS, `${what}: answered in ${Math.round(ms)} ms`);
}

/** Polls the health check until it answers 200 (the service recovered by itself). */
/** Repeats `send` while it answers 503 (at most 30 s, one second apart); the last answer. */
async function until200<T extends { status: number }>(send: () => Promise<T>): Promise<T> {
  const start = performance.now();
  for (;;) {
    const answer = await send();
    if (answer.status !== 503 || performance.now() - start > 30_000) return answer;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function healthyWithin(url: string, ms: number): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < ms) {
    const { res } = await timed(`${url}/api/proxy`, json({ action: "healthCheck" }));
    if (res.status === 200) return performance.now() - start;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the service did not recover within ${ms} ms`);
}

async function entriesOf(url: string, sessionToken: string, date: string) {
  const res = await post(url, "/api/proxy", {
    action: "getEntries",
    start: date,
    end: date,
  }, sessionToken);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.entries as { date: string; values: Record<string, unknown> }[];
}

Deno.test("KV deadline: a service on a remote KV in outage answers every request 503 within KV_DEADLINE_MS and recovers with nothing lost", async (t) => {
  await using server = await startKvConnectServer();
  await using p = await startProcesses({
    count: 1,
    // The multiplier keeps the health-check polls below of the rate limit's way.
    env: {
      ...kvConnectEnv(server),
      KV_DEADLINE_MS: String(DEADLINE_MS),
      RATE_LIMIT_MULTIPLIER: "100",
    },
  });
  const url = p.urls[0];
  const member = await registerWithToken(url, "outage_member");
  await proxy(url, member, {
    action: "createColumn",
    key: "weight",
    label: "Weight",
    type: "number",
    unit: "kg",
    direction: "lower_better",
  });
  // Acknowledged before the outage: must survive it.
  await proxy(url, member, { action: "saveEntry", date: "2026-11-20", values: { weight: 70 } });
  const cookie = { headers: { Cookie: `rt_session=${member.sessionToken}` } };
  assert.equal((await timed(`${url}/app`, cookie)).res.status, 200);

  /**
   * Runs `step` in an outage of its own, so each kind of request is the first to meet it (waits
   * out the deadline itself rather than finding the KV already known down); then waits for the
   * service to recover by itself.
   */
  const inOutage = (name: string, step: () => Promise<void>) =>
    t.step(name, async () => {
      server.setOutage(true);
      try {
        await step();
      } finally {
        server.setOutage(false);
        await healthyWithin(url, 30_000);
      }
    });

  await inOutage("a tool call over MCP with a token: 503, a JSON-RPC error", async () => {
    const r = await timed(`${url}/api/mcp`, json(toolCall("get_entries", {}), member.token));
    assertBusy("tools/call", r);
    const body = JSON.parse(r.body);
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.id, 1);
    assert.equal(typeof body.error?.message, "string", r.body);
  });

  await inOutage("a page: 503, the HTML error page", async () => {
    const r = await timed(`${url}/app`, cookie);
    assertBusy("GET /app", r);
    assert.match(r.res.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(r.body, /Storage did not answer in time/);
  });

  await inOutage("the REST data API, a read: 503 service_busy", async () => {
    const read = await timed(
      `${url}/api/proxy`,
      json({ action: "getEntries", start: "2026-11-20", end: "2026-11-20" }, member.sessionToken),
    );
    assertBusy("getEntries", read);
    assert.equal(JSON.parse(read.body).code, "service_busy");
  });

  await inOutage("the REST data API, a write: 503 service_busy", async () => {
    const write = await timed(
      `${url}/api/proxy`,
      json(
        { action: "saveEntry", date: "2026-11-21", values: { weight: 71 } },
        member.sessionToken,
      ),
    );
    assertBusy("saveEntry", write);
    assert.equal(JSON.parse(write.body).code, "service_busy");
  });

  await inOutage("an OAuth endpoint: 503 in RFC 6749 §5.2 shape", async () => {
    const r = await timed(`${url}/api/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: "rt_unknown_refresh_token",
        client_id: "some-client",
      }),
    });
    assertBusy("POST /oauth/token", r);
    assert.equal(JSON.parse(r.body).error, "temporarily_unavailable");
  });

  await inOutage("the health check: 503 unhealthy within its deadline", async () => {
    const r = await timed(`${url}/api/proxy`, json({ action: "healthCheck" }));
    assertBusy("healthCheck", r);
    assert.equal(JSON.parse(r.body).status, "unhealthy");
  });

  await t.step("after the outages, service resumes by itself with nothing lost", async () => {
    await healthyWithin(url, 30_000);
    // A client retries a 503 after its Retry-After; each kind must come back by itself.
    const tool = await until200(() =>
      post(url, "/api/mcp", toolCall("get_entries", {}), member.token)
    );
    assert.equal(tool.status, 200, JSON.stringify(tool.body));
    assert.equal((await until200(async () => (await timed(`${url}/app`, cookie)).res)).status, 200);
    // Acknowledged before: still there.
    const before = await entriesOf(url, member.sessionToken, "2026-11-20");
    assert.deepEqual(before.map((e) => e.values.weight), [70]);
    // Attempted during the outage: absent, or present exactly once.
    const during = await entriesOf(url, member.sessionToken, "2026-11-21");
    assert.ok(during.length <= 1, JSON.stringify(during));
    // And writes work again.
    await proxy(url, member, { action: "saveEntry", date: "2026-11-22", values: { weight: 72 } });
    const after = await entriesOf(url, member.sessionToken, "2026-11-22");
    assert.deepEqual(after.map((e) => e.values.weight), [72]);
  });
});
