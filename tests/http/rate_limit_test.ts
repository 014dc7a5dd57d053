import assert from "node:assert/strict";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { jsonPost, makeApp } from "../_helpers.ts";
import { manualClock } from "../../lib/foundation/clock.ts";
import { RateLimiter } from "../../lib/policy/rate_limit.ts";

const PING = { jsonrpc: "2.0", id: 1, method: "ping" };

function parseRateLimit(value: string | null) {
  const m = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(value ?? "");
  assert.ok(m, `RateLimit header "${value}"`);
  return { policy: m[1], r: Number(m[2]), t: Number(m[3]) };
}

/** Tests flush the limiter themselves: no real timer races their manual clock (issue #23). */
const EXPLICIT_FLUSH = { rateLimitFlushMs: Infinity };

Deno.test("sandbox quota: counts down, 429 with Retry-After when spent, recovers as time passes", async (t) => {
  const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  await using a = await makeApp({ clock, config: EXPLICIT_FLUSH });
  const limiter = a.app.deps.rateLimiter;
  let last = 120;

  await t.step("RateLimit counts down and matches the legacy trio", async () => {
    for (let i = 0; i < 120; i++) {
      // a flush beside every request: its reads meet a commit in flight every time
      const [, res] = await Promise.all([
        limiter.flush(),
        a.request("/api/sandbox", jsonPost(PING)),
      ]);
      await res.body?.cancel();
      assert.equal(res.status, 200, `request ${i + 1}`);
      assert.equal(res.headers.get("ratelimit-policy"), '"sandbox";q=120;w=60');
      const rl = parseRateLimit(res.headers.get("ratelimit"));
      assert.equal(rl.policy, "sandbox");
      assert.ok(rl.r < last, "remaining decreases");
      last = rl.r;
      assert.equal(res.headers.get("ratelimit-limit"), "120");
      assert.equal(res.headers.get("ratelimit-remaining"), String(rl.r));
      assert.equal(res.headers.get("ratelimit-reset"), String(rl.t));
      assert.ok(rl.t >= 1 && rl.t <= 60);
    }
    assert.equal(last, 0);
    await limiter.flush();
  });

  await t.step("the 121st request is 429 with Retry-After ≥ t", async () => {
    const res = await a.request("/api/sandbox", jsonPost(PING));
    assert.equal(res.status, 429);
    const retryAfter = Number(res.headers.get("retry-after"));
    const rl = parseRateLimit(res.headers.get("ratelimit"));
    assert.equal(rl.r, 0);
    assert.ok(retryAfter >= rl.t, `Retry-After ${retryAfter} ≥ t ${rl.t}`);
    const body = await res.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.error.data.code, "rate_limited");
    assert.equal(body.error.data.synthetic, true);
  });

  await t.step("still limited right after the window rolls (sliding, not fixed)", async () => {
    clock.advance(60_000);
    const res = await a.request("/api/sandbox", jsonPost(PING));
    await res.body?.cancel();
    assert.equal(res.status, 429);
  });

  await t.step("allowed again once the previous window has decayed", async () => {
    clock.advance(30_000);
    const res = await a.request("/api/sandbox", jsonPost(PING));
    await res.body?.cancel();
    assert.equal(res.status, 200);
  });

  await t.step("another client address has its own quota", async () => {
    await using b = await makeApp({ clock, config: { ...EXPLICIT_FLUSH, trustProxy: true } });
    const res = await b.request(
      "/api/sandbox",
      jsonPost(PING, { "X-Forwarded-For": "203.0.113.9" }),
    );
    await res.body?.cancel();
    assert.equal(res.status, 200);
  });
});

Deno.test("rate limits: docs pages spend the public quota", async () => {
  await using a = await makeApp();
  const res = await a.request("/docs/mcp");
  await res.body?.cancel();
  assert.equal(res.headers.get("ratelimit-policy"), '"public";q=600;w=60');
  assert.equal(parseRateLimit(res.headers.get("ratelimit")).policy, "public");
});

Deno.test("rate limits: limiters on one KV file never allow more than the quota together", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite3`;
  const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  // Two processes' worth of limiters: separate KV handles on one file, as `deno serve --parallel`.
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  const a = new RateLimiter(kvA, clock, { flushIntervalMs: Infinity });
  const b = new RateLimiter(kvB, clock, { flushIntervalMs: Infinity });
  try {
    let allowed = 0;
    const hits = [];
    for (let i = 0; i < 200; i++) hits.push((i % 2 ? a : b).hit("auth", "198.51.100.7"));
    for (const outcome of await Promise.all(hits)) if (outcome.allowed) allowed++;
    assert.equal(allowed, 10, "auth quota is 10 across both instances");

    // A larger quota is counted in batches far from the limit, exactly near it. Member-keyed
    // counters count only while the account exists (an account deletion must not be undone by a
    // late flush), so the member is stored first.
    await kvA.set(keys.member("member-1"), { id: "member-1" });
    let mcpAllowed = 0;
    for (let round = 0; round < 5; round++) {
      const batch = [];
      for (let i = 0; i < 60; i++) batch.push((i % 2 ? a : b).hit("mcp", "member-1"));
      for (const o of await Promise.all(batch)) if (o.allowed) mcpAllowed++;
      // Each publishes its counts between bursts; no timer, so what each sees is decided here.
      await a.flush();
      await b.flush();
    }
    assert.equal(mcpAllowed, 120, "mcp quota is 120 across both instances");
  } finally {
    await a.close();
    await b.close();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("rate limits: the multiplier raises quotas (benchmarks count without rejecting)", async () => {
  await using a = await makeApp({ config: { rateLimitMultiplier: 1000 } });
  const res = await a.request("/api/sandbox", jsonPost(PING));
  await res.body?.cancel();
  assert.equal(res.headers.get("ratelimit-policy"), '"sandbox";q=120000;w=60');
  assert.equal(parseRateLimit(res.headers.get("ratelimit")).r, 119999);
});

Deno.test("client addresses: IPv6 hosts are counted by /64 in every quota", async (t) => {
  const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  await using a = await makeApp({ clock, config: { trustProxy: true } });
  // `auth` (10 a minute per address) spent with `session` and no credential: 401 at once, counted.
  const session = (hop: string) =>
    a.request("/api/auth", jsonPost({ action: "session" }, { "X-Forwarded-For": hop }));
  const statuses = async (hops: string[]) => {
    const out = [];
    for (const hop of hops) {
      const res = await session(hop);
      await res.body?.cancel();
      out.push(res.status);
    }
    return out;
  };

  await t.step("a host changing its address within its /64 stays limited", async () => {
    const hops = Array.from({ length: 12 }, (_, i) => `2001:db8:aa:bb:${i.toString(16)}::${i + 1}`);
    const got = await statuses(hops);
    // Before: every address had its own quota, so all twelve were 401.
    assert.deepEqual(got, [...Array(10).fill(401), 429, 429]);
    const res = await session("2001:0db8:00aa:00bb:ffff:ffff:ffff:ffff");
    await res.body?.cancel();
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get("retry-after")) >= 1);
  });

  await t.step("pages' public quota counts the /64 too", async () => {
    const remaining = [];
    for (const hop of ["2001:db8:cc:dd::1", "2001:db8:cc:dd::2"]) {
      const res = await a.request("/docs/mcp", { headers: { "X-Forwarded-For": hop } });
      await res.body?.cancel();
      assert.equal(res.headers.get("ratelimit-policy"), '"public";q=600;w=60');
      remaining.push(Number(res.headers.get("ratelimit-remaining")));
    }
    assert.equal(remaining[1], remaining[0] - 1);
  });

  await t.step("the next /64 has its own quota", async () => {
    assert.deepEqual(await statuses(["2001:db8:aa:bc::1"]), [401]);
  });

  await t.step("IPv4 addresses are counted one by one, as before", async () => {
    const got = await statuses(Array.from({ length: 11 }, () => "192.0.2.7"));
    assert.deepEqual(got, [...Array(10).fill(401), 429]);
    assert.deepEqual(await statuses(["192.0.2.8"]), [401]);
  });

  await t.step("an IPv4-mapped IPv6 address shares its IPv4 address's quota", async () => {
    assert.deepEqual(await statuses(["::ffff:192.0.2.7", "::ffff:c000:208"]), [429, 401]);
  });
});
