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
