import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getCoachInsights } from "./get_coach_insights.ts";
import { valueAt } from "../coach/evidence.ts";

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

Deno.test("get_coach_insights() with screen replays the q and family size of every statistical finding", () => {
  const all = getCoachInsights.run(record, getCoachInsights.input.parse({ limit: 50 }));
  const statistical = all.insights.filter((i) => i.evidence.family !== undefined);
  assert.ok(statistical.length >= 3, `${statistical.length} statistical findings`);
  for (const i of statistical) {
    const family = i.evidence.family!;
    assert.equal(family.tool, "get_coach_insights");
    const replay = getCoachInsights.run(record, getCoachInsights.input.parse(family.arguments));
    assertValidResult(getCoachInsights, replay);
    assert.equal(replay.screen?.depth, "paid");
    for (const [path, value] of Object.entries(family.key_numbers)) {
      assert.deepEqual(valueAt(replay, path), value, `${i.id} ${path}`);
    }
    assert.match(i.text, new RegExp(`over the ${replay.screen!.tests_run} tests the coach ran`));
  }
  assert.equal(all.screen, undefined, "no screen unless asked");
  assert.throws(() => getCoachInsights.input.parse({ screen: "gold" }));
  assert.throws(() => getCoachInsights.input.parse({ screen: "paid", screen_end: "18/03/2026" }));
});
