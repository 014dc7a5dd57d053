import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getOverview } from "./get_overview.ts";

Deno.test("get_overview() of today lists what is logged and what is pending", () => {
  const result = getOverview.run(syntheticMember(), getOverview.input.parse({}));
  assertValidResult(getOverview, result);
  assert.equal(result.logged_count, 4);
  assert.deepEqual(result.pending_metrics, [
    "workout",
    "mood",
    "steps",
    "water_l",
    "meditation_min",
  ]);
  const meditation = result.rows.find((r) => r.metric === "meditation_min")!;
  assert.deepEqual([meditation.state, meditation.streak_current], ["pending", 23]);
});

Deno.test("get_overview() of a past week has no pending metrics", () => {
  const result = getOverview.run(
    syntheticMember(),
    getOverview.input.parse({ date: "2026-02-04", period: "week" }),
  );
  assertValidResult(getOverview, result);
  assert.deepEqual(result.range, { start: "2026-02-02", end: "2026-02-08" });
  assert.deepEqual(result.pending_metrics, []);
  const steps = result.rows.find((r) => r.metric === "steps")!;
  assert.equal(steps.agg, "sum");
});

Deno.test("get_overview() refuses a date after today", () => {
  assert.throws(
    () => getOverview.run(syntheticMember(), { date: "2026-03-19", period: "day" }),
    (e: unknown) => e instanceof AppError && e.code === "invalid_request",
  );
});

Deno.test("getOverview() marks the weeks of the water gap and the current week partial", () => {
  // water is not logged 2026-02-26 … 03-03: that week's sum covers fewer days than a full week
  const gapWeek = getOverview.run(
    syntheticMember(),
    getOverview.input.parse({ date: "2026-02-26", period: "week" }),
  );
  assertValidResult(getOverview, gapWeek);
  const water = gapWeek.rows.find((r) => r.metric === "water_l")!;
  assert.equal(water.partial, true);
  assert.ok(water.n_days <= 4, `${water.n_days} days`);
  // medication is logged every day (or skipped), so its week is full
  assert.equal(gapWeek.rows.find((r) => r.metric === "medication_taken")!.partial, false);
  // this week runs Monday 03-16 … today (Wednesday): partial for every metric
  const thisWeek = getOverview.run(syntheticMember(), getOverview.input.parse({ period: "week" }));
  assert.ok(thisWeek.rows.every((r) => r.partial));
  const today = getOverview.run(syntheticMember(), getOverview.input.parse({}));
  assert.ok(today.rows.every((r) => !r.partial));
});
