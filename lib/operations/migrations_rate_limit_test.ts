import assert from "node:assert/strict";
import { manualClock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { RATE_LIMIT_POLICIES, RateLimiter } from "../policy/rate_limit.ts";
import { MIGRATIONS } from "./migrations.ts";

const W = RATE_LIMIT_POLICIES.sandbox.w * 1000;

Deno.test("migrations: step 6 indexes counters written before the sweep index, so they are swept", async () => {
  await using kv = await Deno.openKv(":memory:");
  const now = Date.now();
  const index = Math.floor(now / W);
  // As the previous release left them: counters only, written by `sum` (no expiry, no index).
  const op = kv.atomic();
  for (let i = 0; i < 700; i++) {
    op.sum(keys.rateLimitWindow("sandbox", `10.0.0.${i}`, index - 3), 1n);
  }
  op.sum(keys.rateLimitWindow("sandbox", "10.9.9.9", index), 1n);
  await op.commit();
  const step = MIGRATIONS[5];
  assert.equal(step.to, 6);

  assert.equal(await step.run(kv), 701);
  assert.equal(await step.run(kv), 0, "run again, it changes nothing");

  const limiter = new RateLimiter(kv, manualClock(now), { flushIntervalMs: Infinity });
  try {
    // Before the step, the sweep (which reads only the index) would find none of them.
    assert.deepEqual(await limiter.sweep(), { leased: true, deleted: 700 });
    const left = await Array.fromAsync(kv.list({ prefix: keys.rateLimitPrefix() }));
    assert.deepEqual(left.map((e) => e.key), [keys.rateLimitWindow("sandbox", "10.9.9.9", index)]);
  } finally {
    await limiter.close();
  }
});
