/**
 * The deadline on a remote KV's calls (lib/foundation/kv_deadline.ts, issue #21), through Deno's
 * real KV Connect client against the KV Connect test server: in an outage Deno's client retries
 * without end, so without the deadline every call here would hang.
 */

import assert from "node:assert/strict";
import { type KvConnectServer, openKvConnect, startKvConnectServer } from "../kv_connect/server.ts";
import { isOutcomeUnknown, withKvDeadline } from "../../lib/foundation/kv_deadline.ts";
import { withKvRetry } from "../../lib/foundation/kv_commit.ts";
import { AppError } from "../../lib/foundation/errors.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { systemClock } from "../../lib/foundation/clock.ts";
import { RateLimiter } from "../../lib/policy/rate_limit.ts";
import { makeApp } from "../_helpers.ts";

const KEY = ["deadline_test", "counter"];

/** Runs `call`, returning what it threw and how long it took (a hang fails the test at 10 s). */
async function refusal(call: () => Promise<unknown>): Promise<{ err: AppError; ms: number }> {
  const start = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise((_, reject) =>
    timer = setTimeout(() => reject(new Error("the call hung")), 10_000)
  );
  try {
    await Promise.race([call(), hang]);
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return { err, ms: performance.now() - start };
  } finally {
    clearTimeout(timer);
  }
  throw new Error("the call did not fail");
}

/** Waits until the KV answers through `kv` (the service recovering by itself). */
async function answering(kv: Deno.Kv): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      await kv.get(KEY);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error("the KV never answered again");
}

Deno.test("withKvDeadline() answers service_busy at the deadline, then at once, and recovers when the KV answers", async () => {
  await using server = await startKvConnectServer();
  const kv = withKvDeadline(await openKvConnect(server), 300);
  try {
    await kv.set(KEY, new Deno.KvU64(1n));
    server.setOutage(true);
    const first = await refusal(() => kv.get(KEY));
    assert.equal(first.err.code, "service_busy");
    assert.equal(first.err.status, 503);
    assert.equal(first.err.details?.retryAfterSeconds, 1);
    assert.match(first.err.message, /nothing was changed/);
    assert.ok(first.ms >= 280 && first.ms < 2_000, `${first.ms} ms`);
    // Known down: later calls (a list page, a commit) are refused without waiting again.
    const list = await refusal(async () => {
      for await (const _ of kv.list({ prefix: ["deadline_test"] })) { /* nothing */ }
    });
    assert.ok(list.ms < 100, `${list.ms} ms`);
    const commit = await refusal(() => kv.atomic().sum(KEY, 1n).commit());
    assert.ok(commit.ms < 100, `${commit.ms} ms`);
    assert.equal(isOutcomeUnknown(commit.err), false, "never sent: known not saved");
    server.setOutage(false);
    await answering(kv);
    assert.equal((await kv.get<Deno.KvU64>(KEY)).value?.value, 1n, "the refused sum never ran");
  } finally {
    kv.close();
  }
});

Deno.test("withKvDeadline(): a commit past its deadline 'may or may not have been saved', is not retried by withKvRetry, and lands once", async () => {
  await using server = await startKvConnectServer();
  const kv = withKvDeadline(await openKvConnect(server), 300);
  try {
    await kv.set(KEY, new Deno.KvU64(1n));
    server.setOutage(true);
    const { err, ms } = await refusal(() =>
      withKvRetry(async () => (await kv.atomic().sum(KEY, 1n).commit()).ok)
    );
    assert.equal(err.code, "service_busy");
    assert.ok(isOutcomeUnknown(err));
    assert.match(err.message, /may or may not have been saved/);
    assert.ok(ms < 2_000, `withKvRetry gave up at once, not after its 12 attempts: ${ms} ms`);
    server.setOutage(false);
    await answering(kv);
    // Deno's client kept resending the abandoned commit and it was applied when the KV came back:
    // once, since nothing here sent it again.
    for (let i = 0; i < 50; i++) {
      if ((await kv.get<Deno.KvU64>(KEY)).value?.value !== 1n) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await kv.get<Deno.KvU64>(KEY)).value?.value, 2n);
  } finally {
    kv.close();
  }
});

/** The sum of every rate-limit counter in the KV. */
async function counted(kv: Deno.Kv): Promise<bigint> {
  let total = 0n;
  for await (const e of kv.list<Deno.KvU64>({ prefix: keys.rateLimitPrefix() })) {
    total += e.value.value;
  }
  return total;
}

Deno.test("RateLimiter.flush() whose commit passed the KV deadline does not send its sums again (no double count)", async () => {
  await using server = await startKvConnectServer();
  const kv = withKvDeadline(await openKvConnect(server), 300);
  const limiter = new RateLimiter(kv, systemClock, {
    multiplier: 1000,
    flushIntervalMs: 3_600_000,
  });
  try {
    for (let i = 0; i < 3; i++) assert.ok((await limiter.hit("sandbox", "198.51.100.1")).allowed);
    await limiter.flush();
    assert.equal(await counted(kv), 3n);
    for (let i = 0; i < 2; i++) assert.ok((await limiter.hit("sandbox", "198.51.100.1")).allowed);
    server.setOutage(true);
    const { err } = await refusal(() => limiter.flush());
    assert.ok(isOutcomeUnknown(err), err.message);
    server.setOutage(false);
    await answering(kv);
    assert.ok((await limiter.hit("sandbox", "198.51.100.1")).allowed);
    await limiter.flush();
    // 3 before, 2 whose commit was abandoned (and applied once by Deno's client), 1 after.
    for (let i = 0; i < 50 && await counted(kv) < 6n; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(await counted(kv), 6n);
  } finally {
    await limiter.close();
    kv.close();
  }
});

Deno.test("KV deadline: the health check answers 503 within its 2 s deadline while the rate limiter waits on a KV in outage", async () => {
  await using server = await startKvConnectServer();
  // KV_DEADLINE_MS at its default (5 s): the health check's own deadline (2 s) must still hold.
  const kv = withKvDeadline(await openKvConnect(server), 5_000);
  try {
    await healthWithin2s(server, kv);
  } finally {
    kv.close();
  }
});

async function healthWithin2s(server: KvConnectServer, kv: Deno.Kv): Promise<void> {
  await using t = await makeApp({ kv }); // closed (its limiter flushed) before the KV
  const health = async () => {
    const start = performance.now();
    const res = await t.request("/api/proxy", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ action: "healthCheck" }),
    });
    return { res, body: await res.json(), ms: performance.now() - start };
  };
  const ok = await health();
  assert.equal(ok.res.status, 200, JSON.stringify(ok.body));
  server.setOutage(true);
  // Each waits on the rate limiter's first read of the caller's counter (a subject's second
  // request reads it), which only the KV deadline (5 s) would end; the check's own is 2 s.
  for (const n of [1, 2]) {
    const r = await health();
    assert.equal(r.res.status, 503, `check ${n}`);
    assert.equal(r.body.status, "unhealthy");
    assert.equal(r.body.denoKv, "disconnected");
    assert.match(r.res.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
    assert.ok(r.ms < 2_500, `check ${n} answered in ${Math.round(r.ms)} ms`);
  }
  server.setOutage(false);
  for (let i = 0; i < 100 && (await health()).res.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal((await health()).res.status, 200, "healthy again by itself");
}
