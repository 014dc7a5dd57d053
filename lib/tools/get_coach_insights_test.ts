import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getCoachInsights } from "./get_coach_insights.ts";

const record = syntheticMember();

// Issue #12: the sandbox's insights are the coach's at paid depth (11 findings, all created at the
// sandbox's fixed now), no longer five hand-picked ones.
Deno.test("get_coach_insights() returns the coach's insights, newest first", () => {
  const result = getCoachInsights.run(record, getCoachInsights.input.parse({}));
  assertValidResult(getCoachInsights, result);
  assert.equal(result.insights.length, 5);
  assert.equal(result.total_matching, 11);
  assert.ok(result.insights.every((i) => i.depth === "paid"));
  const times = result.insights.map((i) => Date.parse(i.created_at));
  assert.deepEqual(times, times.toSorted((a, b) => b - a));
  assert.deepEqual(result.range, { start: "2026-02-16", end: "2026-03-18" });
});

Deno.test("get_coach_insights() filters by type and metric", () => {
  const trends = getCoachInsights.run(record, getCoachInsights.input.parse({ type: "trend" }));
  assert.deepEqual(trends.insights.map((i) => i.metrics).sort(), [["resting_hr"], ["weight_kg"]]);
  const water = getCoachInsights.run(record, getCoachInsights.input.parse({ metric: "water_l" }));
  assert.ok(
    water.insights.length >= 1 && water.insights.every((i) => i.metrics.includes("water_l")),
  );
  assert.throws(
    () => getCoachInsights.run(record, getCoachInsights.input.parse({ metric: "steps_count" })),
    (e: unknown) => e instanceof AppError && e.code === "unknown_metric",
  );
  assert.throws(() => getCoachInsights.input.parse({ type: "gossip" }));
});
