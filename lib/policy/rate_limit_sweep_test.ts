/**
 * The limiter's housekeeping off the hot path (issue #21 item 8): ended windows are swept outside
 * the flush, page by page, by one instance at a time, from an index ordered by window end — so a
 * sweep reads what ended, not every counter, and a flush never waits behind one.
 */

import assert from "node:assert/strict";
import { manualClock } from "../foundation/clock.ts";
import { keys, rateLimitSweepAt } from "../foundation/kv_keys.ts";
import { RATE_LIMIT_POLICIES, RateLimiter, SWEEP_PAGE } from "./rate_limit.ts";

const W = RATE_LIMIT_POLICIES.sandbox.w;
/** The start of a sandbox window. */
const START = Math.ceil(Date.UTC(2026, 10, 22, 12, 0, 0) / (W * 1000)) * W * 1000;
const INDEX = START / (W * 1000);

/**
 * A limiter on a fresh in-memory KV with a manual clock at START and no flush timer: a test
 * flushes and sweeps explicitly. Closes both when disposed.
 */
async function explicitLimiter() {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock(START);
  const limiter = new RateLimiter(kv, clock, { flushIntervalMs: Infinity });
  return {
    kv,
    clock,
    limiter,
    async [Symbol.asyncDispose]() {
      await limiter.close();
      kv.close();
    },
  };
}
/** `kv` counting the entries its `list` calls yield: what a sweep reads. */
function countingLists(kv: Deno.Kv): { kv: Deno.Kv; listed: () => number } {
  let listed = 0;
  const proxy = new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop !== "list") return typeof value === "function" ? value.bind(target) : value;
      return (...args: Parameters<Deno.Kv["list"]>) => {
        const inner = target.list(...args);
        return (async function* () {
          for await (const e of inner) {
            listed++;
            yield e;
          }
        })();
      };
    },
  });
  return { kv: proxy, listed: () => listed };
}

async function counters(kv: Deno.Kv): Promise<Deno.KvKey[]> {
  return (await Array.fromAsync(kv.list({ prefix: keys.rateLimitPrefix() }))).map((e) => e.key);
}

async function sweepKeys(kv: Deno.Kv): Promise<number> {
  return (await Array.fromAsync(kv.list({ prefix: keys.rateLimitSweepAll() }))).length;
}

Deno.test("RateLimiter.sweep() deletes ended windows' counters, reading only those", async () => {
  await using real = await Deno.openKv(":memory:");
  const { kv, listed } = countingLists(real);
  const clock = manualClock(START);
  const limiter = new RateLimiter(kv, clock, { flushIntervalMs: Infinity });
  try {
    for (let i = 0; i < 3; i++) await limiter.hit("sandbox", `198.51.100.${i}`);
    await limiter.flush();
    // two windows later, 1,200 addresses counted in the current window
    clock.advance(2 * W * 1000);
    for (let i = 0; i < 1200; i++) await limiter.hit("sandbox", `10.0.${i >> 8}.${i & 255}`);
    await limiter.flush();
    assert.equal((await counters(real)).length, 1203);
    assert.equal(await sweepKeys(real), 1203, "each counter's first commit set its sweep key");

    const before = listed();
    const report = await limiter.sweep();
    assert.deepEqual(report, { leased: true, deleted: 3 });
    // Before: the sweep (inside a flush) listed every rate_limit key, 1,203 of them.
    assert.equal(listed() - before, 3, "the sweep read the three ended windows' keys");
    const left = await counters(real);
    assert.equal(left.length, 1200);
    assert.ok(left.every((k) => k[3] === INDEX + 2), "only the current window's counters remain");
    assert.equal(await sweepKeys(real), 1200);
    assert.deepEqual(await limiter.sweep(), { leased: true, deleted: 0 });
  } finally {
    await limiter.close();
  }
});

Deno.test("RateLimiter.sweep() keeps the previous window, which still weighs in the estimate", async () => {
  await using t = await explicitLimiter();
  const { kv, clock, limiter } = t;
  for (let i = 0; i < 120; i++) await limiter.hit("sandbox", "198.51.100.7");
  await limiter.flush();
  clock.set(rateLimitSweepAt(INDEX, W) - 1); // the last moment the window counts as previous
  assert.equal((await limiter.sweep()).deleted, 0);
  assert.equal((await counters(kv)).length, 1);
  clock.advance(1);
  assert.equal((await limiter.sweep()).deleted, 1);
  assert.equal((await counters(kv)).length, 0);
});

Deno.test("RateLimiter.sweep() pages through more ended counters than one page holds", async () => {
  await using t = await explicitLimiter();
  const { kv, clock, limiter } = t;
  const n = 2 * SWEEP_PAGE + 7;
  for (let i = 0; i < n; i++) await limiter.hit("sandbox", `10.1.${i >> 8}.${i & 255}`);
  await limiter.flush();
  clock.advance(2 * W * 1000);
  assert.deepEqual(await limiter.sweep(), { leased: true, deleted: n });
  assert.equal((await counters(kv)).length, 0);
  assert.equal(await sweepKeys(kv), 0);
});

Deno.test("RateLimiter.sweep() reads nothing while another instance holds the lease", async () => {
  const dir = await Deno.makeTempDir();
  const clock = manualClock(START);
  const kvA = await Deno.openKv(`${dir}/kv.sqlite3`);
  const kvB = await Deno.openKv(`${dir}/kv.sqlite3`);
  const a = new RateLimiter(kvA, clock, { flushIntervalMs: Infinity });
  const b = new RateLimiter(kvB, clock, { flushIntervalMs: Infinity });
  try {
    await a.hit("sandbox", "198.51.100.1");
    await a.flush();
    clock.advance(2 * W * 1000);
    // another instance's sweep in progress
    const lease = { owner: "another instance", until: clock() + 60_000 };
    await kvA.set(keys.rateLimitSweepLease(), lease, { expireIn: 60_000 });
    assert.deepEqual(await b.sweep(), { leased: false, deleted: 0 });
    assert.equal((await counters(kvA)).length, 1);
    // its lease has run out: this one sweeps
    clock.advance(60_001);
    assert.deepEqual(await b.sweep(), { leased: true, deleted: 1 });
    assert.equal(
      (await kvA.get(keys.rateLimitSweepLease())).value,
      null,
      "the lease is given back",
    );
  } finally {
    await a.close();
    await b.close();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RateLimiter.flush() never sweeps: ended counters wait for sweep()", async () => {
  await using t = await explicitLimiter();
  const { kv, clock, limiter } = t;
  for (let i = 0; i < 50; i++) await limiter.hit("sandbox", `198.51.100.${i}`);
  await limiter.flush();
  clock.advance(10 * 60_000);
  await limiter.hit("sandbox", "203.0.113.1");
  // Before: the first flush (and every flush 5 minutes later) listed and deleted them first.
  await limiter.flush();
  assert.equal((await counters(kv)).length, 51);
  assert.equal((await limiter.sweep()).deleted, 50);
});

Deno.test("RateLimiter.flush() drops counts of a window that can no longer matter", async () => {
  await using t = await explicitLimiter();
  const { kv, clock, limiter } = t;
  await limiter.hit("sandbox", "198.51.100.1");
  await limiter.flush();
  await limiter.hit("sandbox", "198.51.100.1"); // pending when its window ends unflushed
  clock.advance(2 * W * 1000);
  assert.equal((await limiter.sweep()).deleted, 1);
  await limiter.flush();
  // A counter written after its sweep would never be swept.
  assert.deepEqual(await counters(kv), []);
});

Deno.test("RateLimiter.hit() starts a sweep by itself on a timer after it counts, outside the flush", async () => {
  await using kv = await Deno.openKv(":memory:");
  const clock = manualClock(START);
  const stale = keys.rateLimitWindow("sandbox", "198.51.100.1", INDEX - 5);
  // A counter of an ended window, with its sweep key, as an earlier instance left it.
  const old = new RateLimiter(kv, manualClock(START - 5 * W * 1000), { flushIntervalMs: Infinity });
  await old.hit("sandbox", "198.51.100.1");
  await old.flush();
  await old.close();
  assert.notEqual((await kv.get(stale)).versionstamp, null);
  const limiter = new RateLimiter(kv, clock, { flushIntervalMs: 1, sweepIntervalMs: 20 });
  try {
    await limiter.hit("sandbox", "203.0.113.1");
    const deadline = Date.now() + 5_000;
    while ((await kv.get(stale)).versionstamp !== null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal((await kv.get(stale)).versionstamp, null, "swept within 5 s");
  } finally {
    await limiter.close();
  }
});

Deno.test("RateLimiter.flush() of a rolled window's counts sets its sweep key again", async () => {
  await using t = await explicitLimiter();
  const { kv, clock, limiter } = t;
  await limiter.hit("sandbox", "198.51.100.1");
  await limiter.flush();
  await limiter.hit("sandbox", "198.51.100.1"); // still pending when the window rolls
  clock.set(rateLimitSweepAt(INDEX, W) - 1);
  // What a sweep that ran on another instance just before this flush landed leaves: nothing.
  const all = [keys.rateLimitPrefix(), keys.rateLimitSweepAll()];
  for (const prefix of all) for await (const e of kv.list({ prefix })) await kv.delete(e.key);
  await limiter.flush();
  assert.equal((await counters(kv)).length, 1, "the late count re-created the counter");
  assert.equal(await sweepKeys(kv), 1, "with its sweep key, so it is swept");
  clock.advance(1);
  assert.equal((await limiter.sweep()).deleted, 1);
});
