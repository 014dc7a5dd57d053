import assert from "node:assert/strict";
import { registerMember } from "../accounts/accounts.ts";
import { manualClock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { ColumnCreate, createColumn, saveEntry } from "../record/store.ts";
import type { StoredFindings } from "../record/types.ts";
import { dismissInsight, runCoach } from "./run.ts";
import { effectiveTier, setTier } from "./tier.ts";
import { openLimitedKv } from "../../tests/_kv_limits.ts";

async function setUp() {
  const kv = await openLimitedKv();
  const clock = manualClock(Date.UTC(2026, 2, 18, 12));
  const { memberId } = await registerMember({
    kv,
    clock,
    passwordIterations: 1000,
    defaultTier: "paid",
  }, { username: "runner", password: "a long passphrase" });
  const store = { kv, clock, coachDebounceMs: 60_000 };
  await createColumn(
    store,
    memberId,
    ColumnCreate.parse({ key: "steps", label: "Steps", type: "integer" }),
  );
  for (let i = 0; i < 10; i++) {
    await saveEntry({
      ctx: store,
      memberId: memberId,
      date: `2026-03-${String(8 + i).padStart(2, "0")}`,
      values: {
        steps: 5000 + 100 * i,
      },
    });
  }
  return {
    kv,
    clock,
    memberId,
    store,
    [Symbol.asyncDispose]() {
      kv.close();
      return Promise.resolve();
    },
  };
}

Deno.test("runCoach() runs once per record version and day, and again after a write", async () => {
  await using s = await setUp();
  const ctx = { kv: s.kv, clock: s.clock, owner: "a" };
  const first = await runCoach(ctx, s.memberId);
  assert.equal(first.status, "ran");
  assert.equal(first.status === "ran" && first.tier, "paid"); // DEFAULT_TIER stamped at sign-up
  assert.deepEqual(await runCoach(ctx, s.memberId), { status: "already_analysed" });
  assert.deepEqual(await runCoach({ ...ctx, owner: "b" }, s.memberId), {
    status: "already_analysed",
  });
  await saveEntry({
    ctx: s.store,
    memberId: s.memberId,
    date: "2026-03-18",
    values: { steps: 9000 },
  });
  assert.equal((await runCoach(ctx, s.memberId)).status, "ran");
  s.clock.advance(86_400_000); // a new day: the daily run analyses again
  assert.equal((await runCoach(ctx, s.memberId)).status, "ran");
  const stored = (await s.kv.get<StoredFindings>(keys.coachFindings(s.memberId))).value!;
  assert.equal(stored.runs, 3);
  assert.equal(stored.lease, null);
});

Deno.test("runCoach() leaves a member another instance holds, until its lease lapses", async () => {
  await using s = await setUp();
  const key = keys.coachFindings(s.memberId);
  await s.kv.set(
    key,
    {
      analysed: null,
      insights: [],
      dismissed: [],
      lease: { owner: "other", until: s.clock() + 60_000 },
      runs: 0,
    } satisfies StoredFindings,
  );
  const ctx = { kv: s.kv, clock: s.clock, owner: "me" };
  assert.deepEqual(await runCoach(ctx, s.memberId), { status: "busy" });
  s.clock.advance(61_000);
  assert.equal((await runCoach(ctx, s.memberId)).status, "ran");
});

Deno.test("dismissInsight() removes a finding and the next run does not bring it back", async () => {
  await using s = await setUp();
  const ctx = { kv: s.kv, clock: s.clock, owner: "a" };
  const run = await runCoach(ctx, s.memberId);
  assert.ok(run.status === "ran" && run.insights.length > 0);
  const id = run.insights[0].id;
  assert.equal(await dismissInsight(s.kv, s.memberId, { id }), true);
  assert.equal(await dismissInsight(s.kv, s.memberId, { id }), false);
  const again = await runCoach(ctx, s.memberId, { force: true });
  assert.ok(again.status === "ran" && !again.insights.some((i) => i.id === id));
});

Deno.test("setTier() sets paid until a date and free; effectiveTier() ends paid after it", async () => {
  await using s = await setUp();
  const paid = await setTier(s.kv, s.clock, {
    username: "RUNNER",
    tier: "paid",
    until: "2026-03-20",
  });
  assert.deepEqual([paid.membership, paid.paidUntil], ["paid", "2026-03-20"]);
  assert.equal(effectiveTier(paid, Date.parse("2026-03-20") / 86_400_000), "paid");
  assert.equal(effectiveTier(paid, Date.parse("2026-03-21") / 86_400_000), "free");
  await assert.rejects(
    setTier(s.kv, s.clock, { username: "runner", tier: "paid", until: "2020-01-01" }),
    /on or after 2026-03-18/,
  );
  await assert.rejects(setTier(s.kv, s.clock, { username: "nobody", tier: "free" }), /No member/);
  const ctx = { kv: s.kv, clock: s.clock, owner: "a" };
  assert.equal((await runCoach(ctx, s.memberId)).status, "ran");
  const free = await setTier(s.kv, s.clock, { username: "runner", tier: "free" });
  assert.deepEqual([free.membership, free.paidUntil], ["free", null]);
  // same record version and day, new tier: the coach analyses again, at free depth
  const again = await runCoach(ctx, s.memberId);
  assert.equal(again.status === "ran" && again.tier, "free");
});

Deno.test("runCoach() from two instances at once: one runs, the other stands back", async () => {
  await using s = await setUp();
  const outcomes = await Promise.all(
    ["a", "b", "c"].map((owner) => runCoach({ kv: s.kv, clock: s.clock, owner }, s.memberId)),
  );
  const ran = outcomes.filter((o) => o.status === "ran").length;
  assert.equal(ran, 1, JSON.stringify(outcomes.map((o) => o.status)));
  assert.ok(outcomes.every((o) => ["ran", "busy", "already_analysed"].includes(o.status)));
  const stored = (await s.kv.get<StoredFindings>(keys.coachFindings(s.memberId))).value!;
  assert.equal(stored.runs, 1);
});
