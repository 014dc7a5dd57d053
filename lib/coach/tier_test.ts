import assert from "node:assert/strict";
import { registerMember } from "../accounts/accounts.ts";
import { manualClock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { ColumnCreate, createColumn, saveEntry } from "../record/store.ts";
import type { StoredFindings } from "../record/types.ts";
import { seededRandom } from "../analytics/_test_record.ts";
import { setTier } from "./tier.ts";
import { coachPoll } from "./worker.ts";
import { openLimitedKv } from "../../tests/_kv_limits.ts";

const DAY_MS = 86_400_000;

/** A free member whose mood climbed over 120 days (the free trend compares 8 weeks with the 8 before), its coach run through the poll. */
async function setUp() {
  const kv = await openLimitedKv();
  const clock = manualClock(Date.UTC(2026, 2, 18, 12));
  const { memberId } = await registerMember({ kv, clock, passwordIterations: 1000 }, {
    username: "upgrader",
    password: "a long passphrase",
  });
  const store = { kv, clock, coachDebounceMs: 0 };
  await createColumn(
    store,
    memberId,
    ColumnCreate.parse({ key: "mood_score", label: "Mood score", type: "number" }),
  );
  const rnd = seededRandom(5);
  for (let i = 0; i < 120; i++) {
    const date = new Date(Date.UTC(2026, 2, 18) - (119 - i) * DAY_MS).toISOString().slice(0, 10);
    await saveEntry({
      ctx: store,
      memberId,
      date,
      values: { mood_score: Math.round((3 + 0.03 * i + 0.4 * (rnd() - 0.5)) * 10) / 10 },
    });
  }
  const findings = async () =>
    (await kv.get<StoredFindings>(keys.coachFindings(memberId))).value?.insights ?? [];
  const poll = () => coachPoll({ kv, clock, owner: "poller" });
  return {
    kv,
    clock,
    memberId,
    findings,
    poll,
    [Symbol.asyncDispose]() {
      kv.close();
      return Promise.resolve();
    },
  };
}

Deno.test("setTier() has the next coach poll re-analyse at the new depth and retire the old depth's findings", async () => {
  await using s = await setUp();
  await s.poll();
  const free = await s.findings();
  const freeTrend = free.find((i) => i.type === "trend");
  assert.ok(freeTrend, "the free coach states the trend");
  assert.ok(free.every((i) => i.depth === "free"));
  await setTier(s.kv, s.clock, { username: "upgrader", tier: "paid", until: "2026-12-31" });
  await s.poll();
  const paid = await s.findings();
  assert.ok(paid.some((i) => i.type === "trend"), "the paid coach states its trend");
  assert.deepEqual(paid.filter((i) => i.depth !== "paid").map((i) => i.text), []);
  // the same trend may be found again at paid depth (same id); the free-depth finding is gone
  assert.ok(
    paid.every((i) => i.id !== freeTrend.id || i.depth === "paid"),
    "the free trend finding is retired",
  );
});

Deno.test("effectiveTier() ending a paid tier has the next daily poll retire the paid findings", async () => {
  await using s = await setUp();
  await setTier(s.kv, s.clock, { username: "upgrader", tier: "paid", until: "2026-03-18" });
  await s.poll();
  const paid = await s.findings();
  assert.ok(paid.length > 0 && paid.every((i) => i.depth === "paid"));
  // the paid tier ends with 2026-03-18; the daily run of 2026-03-19 03:00 UTC is at free depth
  s.clock.set(Date.UTC(2026, 2, 19, 3, 0, 1));
  await s.poll();
  const after = await s.findings();
  assert.ok(after.length > 0, "the free coach has its own findings");
  assert.deepEqual(after.filter((i) => i.depth !== "free").map((i) => i.text), []);
});
