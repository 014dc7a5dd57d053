/**
 * Every descriptive tool on a sparse hand-built record (an empty column, a column of skips only, a
 * weekly goal never met, an archived column) still returns exactly what its output schema says.
 */

import assert from "node:assert/strict";
import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";
import { assertValidResult, day, testColumn, testRecord } from "../analytics/_test_record.ts";
import type { ToolDefinition } from "./define_tool.ts";
import { listColumns } from "./list_columns.ts";
import { getOverview } from "./get_overview.ts";
import { getEntries } from "./get_entries.ts";
import { getAggregates } from "./get_aggregates.ts";
import { getSummaryStats } from "./get_summary_stats.ts";
import { getStreak } from "./get_streak.ts";
import { getHabitStrength } from "./get_habit_strength.ts";
import { getGoalProgress } from "./get_goal_progress.ts";
import { getPersonalBests } from "./get_personal_bests.ts";
import { getDataCoverage } from "./get_data_coverage.ts";
import { getCoachInsights } from "./get_coach_insights.ts";

const TODAY = day("2026-03-18");
const skipsOnly = new Map<DayNumber, DayValue>([[TODAY - 2, "skip"], [TODAY - 1, "skip"]]);
const twoWorkouts = new Map<DayNumber, DayValue>([[TODAY - 9, true], [TODAY - 8, false]]);

const record = testRecord({
  columns: [
    testColumn("empty", { goal: { op: "at_least", value: 5, per: "day", times: null } }),
    testColumn("skipped", { type: "scale", scale_min: 1, scale_max: 5 }),
    testColumn("workout", {
      type: "boolean",
      daily_agg: "any",
      goal: { op: "true", value: null, per: "week", times: 3 },
    }),
    testColumn("old", { archived: true }),
  ],
  values: { skipped: skipsOnly, workout: twoWorkouts },
});

// deno-lint-ignore no-explicit-any -- heterogeneous tools share one loop
const run = (tool: ToolDefinition<any, any>, args: Record<string, unknown>) => {
  const result = tool.run(record, tool.input.parse(args));
  assertValidResult(tool as ToolDefinition, result);
  return result;
};

Deno.test("descriptive tools: record-wide tools stay valid on a sparse record", () => {
  const columns = run(listColumns, {});
  assert.deepEqual(columns.columns[0].first_date, null);
  assert.equal(columns.columns[3].archived, true);
  for (const period of ["day", "week"]) run(getOverview, { period });
  const entries = run(getEntries, {});
  assert.deepEqual(entries.metrics, ["empty", "skipped", "workout"]);
  run(getGoalProgress, {});
  run(getGoalProgress, { period: "month" });
  const coverage = run(getDataCoverage, {});
  assert.equal(coverage.columns[0].completeness, null);
  const insights = run(getCoachInsights, {});
  assert.equal(insights.insights.length, 0);
});

Deno.test("descriptive tools: per-metric tools stay valid for empty, skip-only and never-met columns", () => {
  for (const metric of ["empty", "skipped", "workout", "old"]) {
    run(getAggregates, { metric, agg: "count" });
    run(getSummaryStats, { metric });
    const streak = run(getStreak, { metric });
    assert.notEqual(streak.status, "active_today");
    const strength = run(getHabitStrength, { metric, include_series: true });
    if (metric === "empty") assert.equal(strength.withheld.reason, "no_entries");
    const bests = run(getPersonalBests, { metric });
    if (metric !== "workout") assert.equal(bests.withheld.reason, "no_values");
  }
  assert.equal(run(getStreak, { metric: "empty" }).status, "never_started");
  assert.equal(run(getStreak, { metric: "workout" }).status, "never_started");
});
