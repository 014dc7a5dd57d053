/**
 * Rate-limit quotas across four real service processes on one KV file (issue #13), over HTTP as a
 * client sees them: near the limit every request is an exact KV commit, so together the instances
 * never allow more than the quota; far from it they count in batches, within the bound documented
 * in lib/policy/rate_limit.ts.
 *
 * Every scenario has its own client address (`TRUST_PROXY=1`, the right-most `X-Forwarded-For`
 * hop), so the scenarios share one group of processes without sharing a quota.
 */

import assert from "node:assert/strict";
import {
  DEFAULT_EXACT_MARGIN,
  RATE_LIMIT_POLICIES,
  VIEW_SHARE,
} from "../../lib/policy/rate_limit.ts";
import { kvModeName, kvModes, startProcesses } from "../_processes.ts";
import { registerWithToken, toolCall } from "../http/_members.ts";

const INSTANCES = 4;
/**
 * Paced bursts: at most two requests per process each, so the others' counts an instance has not
 * seen yet stay well under `exactMargin` (the margin exactness rests on); one short of two each,
 * so the quota runs out inside a burst, where processes race for the last units.
 */
const PACED_BURST = 2 * INSTANCES - 1;
/** Between paced bursts: several flush intervals (10 ms), so each burst's counts reach KV first. */
const PAUSE_MS = 50;

/** What a client keeps of one response. */
interface Hit {
  status: number;
  headers: Headers;
}

/** Who sends: the client address and, for member quotas, a bearer token. */
interface Client {
  /** The hop our proxy would append to `X-Forwarded-For` (lib/http/kernel/client_ip.ts). */
  ip: string;
  bearer?: string;
}

/**
 * POSTs `body` as JSON to `url` + `path` as `client`; the response body is discarded. Each request
 * also claims a different address in the client-supplied hops, which must not split the quota.
 */
async function send(url: string, path: string, body: unknown, client: Client): Promise<Hit> {
  const res = await fetch(url + path, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "X-Forwarded-For": `203.0.113.${Math.floor(Math.random() * 256)}, ${client.ip}`,
      ...(client.bearer ? { Authorization: `Bearer ${client.bearer}` } : {}),
    },
    body: JSON.stringify(body),
  });
  await res.body?.cancel();
  return { status: res.status, headers: res.headers };
}

/** `count` requests at once, spread round-robin over the processes. */
function burst(urls: string[], count: number, one: (url: string) => Promise<Hit>) {
  return Promise.all(Array.from({ length: count }, (_, i) => one(urls[i % urls.length])));
}

/** `total` requests in bursts of `perBurst`, with a short real pause after each burst. */
async function pacedBursts(
  urls: string[],
  total: number,
  perBurst: number,
  one: (url: string) => Promise<Hit>,
): Promise<Hit[]> {
  const hits: Hit[] = [];
  for (let sent = 0; sent < total; sent += perBurst) {
    hits.push(...await burst(urls, Math.min(perBurst, total - sent), one));
    await new Promise((r) => setTimeout(r, PAUSE_MS));
  }
  return hits;
}

/** Not refused by the rate limiter; no 5xx either (contention on one KV file is no outage). */
function allowedOf(hits: Hit[]): number {
  assert.deepEqual(hits.filter((h) => h.status >= 500).map((h) => h.status), []);
  return hits.filter((h) => h.status !== 429).length;
}

/**
 * Runs `scenario` inside one 60 s window, waiting for the next window if fewer than `seconds`
 * remain: across a window boundary the sliding estimate lets the previous window's count decay,
 * and the total allowed would no longer be one quota.
 */
async function inOneWindow<T>(seconds: number, scenario: () => Promise<T>): Promise<T> {
  const windowMs = 60_000; // auth, sandbox and mcp all count in windows of 60 s
  const left = windowMs - (Date.now() % windowMs);
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 50));
  const index = Math.floor(Date.now() / windowMs);
  const result = await scenario();
  assert.equal(Math.floor(Date.now() / windowMs), index, `scenario took over ${seconds} s`);
  return result;
}

/** `"<policy>";r=<remaining>;t=<reset>` (draft-ietf-httpapi-ratelimit-headers). */
function parseRateLimit(value: string | null) {
  const m = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(value ?? "");
  assert.ok(m, `RateLimit header "${value}"`);
  return { policy: m[1], r: Number(m[2]), t: Number(m[3]) };
}

/** Every response names its policy; a 429 also says when to retry, never before the reset. */
function assertRateLimitHeaders(hits: Hit[], policy: keyof typeof RATE_LIMIT_POLICIES): void {
  const { q, w } = RATE_LIMIT_POLICIES[policy];
  for (const h of hits) {
    assert.equal(h.headers.get("ratelimit-policy"), `"${policy}";q=${q};w=${w}`);
    const rl = parseRateLimit(h.headers.get("ratelimit"));
    assert.equal(rl.policy, policy);
    assert.equal(h.headers.get("ratelimit-limit"), String(q));
    if (h.status !== 429) continue;
    assert.equal(rl.r, 0);
    const retryAfter = Number(h.headers.get("retry-after"));
    assert.ok(retryAfter >= Math.max(1, rl.t), `Retry-After ${retryAfter} ≥ t ${rl.t}`);
  }
}

// Issue #21: on a KV file and on a remote KV at 10 ms per round trip (Deno's real KV Connect client);
// 0 ms passes too (`TEST_KV=remote:0`) but adds 40 s to `deno task test` and nothing 10 ms does not
// cover. (Run with all three files in every mode at once on this 2-core machine, the 0 ms auth step
// once outlasted its 10 s window: load, not the KV.)
const MODES = kvModes(["file", { latencyMs: 10 }]);

for (const kv of MODES) {
  Deno.test(`instances: rate-limit quotas across four processes on ${kvModeName(kv)}`, async (t) => {
    await using procs = await startProcesses({
      kv,
      count: INSTANCES,
      env: { RATE_LIMIT_MULTIPLIER: "1", TRUST_PROXY: "1" },
    });
    const { urls } = procs;

    await t.step("auth: 200 failed logins at once → exactly 10 not refused", async () => {
      const client = { ip: "198.51.100.10" };
      const login = { action: "login", username: "nobody-here", password: "wrong passphrase" };
      const hits = await inOneWindow(
        10,
        () => burst(urls, 200, (url) => send(url, "/api/auth", login, client)),
      );
      assert.equal(allowedOf(hits), RATE_LIMIT_POLICIES.auth.q);
      assert.ok(hits.every((h) => h.status === 401 || h.status === 429));
      assertRateLimitHeaders(hits, "auth");
    });

    const listColumns = toolCall("list_columns");

    await t.step("sandbox: paced bursts over all four → exactly 120 allowed", async () => {
      const client = { ip: "198.51.100.20" };
      const hits = await inOneWindow(
        15,
        () =>
          pacedBursts(
            urls,
            200,
            PACED_BURST,
            (url) => send(url, "/api/sandbox", listColumns, client),
          ),
      );
      assert.equal(allowedOf(hits), RATE_LIMIT_POLICIES.sandbox.q);
      assert.ok(hits.slice(-40).every((h) => h.status === 429), "the last requests are refused");
      assertRateLimitHeaders(hits, "sandbox");
    });

    // Before each instance could spend only a share of the headroom one view shows, 480 at once were
    // allowed 263 to 339 times and 240 at once all 240 (issue #13).
    await t.step({
      name: "sandbox: 480 requests at once → at least 120, within the documented bound",
      fn: async () => {
        const client = { ip: "198.51.100.21" };
        const hits = await inOneWindow(
          15,
          () => burst(urls, 480, (url) => send(url, "/api/sandbox", listColumns, client)),
        );
        // lib/policy/rate_limit.ts: beyond the quota, each instance at most one share of a stale
        // view, plus the first request of a subject it has never seen, counted without a read.
        const { q } = RATE_LIMIT_POLICIES.sandbox;
        const bound = INSTANCES * (Math.floor((q - DEFAULT_EXACT_MARGIN) / VIEW_SHARE) + 1);
        const allowed = allowedOf(hits);
        assert.ok(
          allowed >= q && allowed <= q + bound,
          `allowed ${allowed}, not in [${q}, ${q + bound}]`,
        );
        assertRateLimitHeaders(hits, "sandbox");
      },
    });

    await t.step("mcp: one member's tools/call over all four → exactly 120 allowed", async () => {
      const member = await registerWithToken(urls[0], "quota-member");
      const client = { ip: "198.51.100.30", bearer: member.token };
      const hits = await inOneWindow(
        15,
        () =>
          pacedBursts(urls, 200, PACED_BURST, (url) => send(url, "/api/mcp", listColumns, client)),
      );
      assert.equal(allowedOf(hits), RATE_LIMIT_POLICIES.mcp.q);
      assert.ok(hits.every((h) => h.status === 200 || h.status === 429));
      assertRateLimitHeaders(hits, "mcp");
    });

    await t.step("no process logged an internal error", () => {
      for (let i = 0; i < procs.urls.length; i++) {
        assert.doesNotMatch(procs.output(i), /internal error|Uncaught/i, procs.output(i));
      }
    });
  });
}
