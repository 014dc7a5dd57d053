import assert from "node:assert/strict";
import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";
import { day, testColumn, testRecord } from "./_test_record.ts";
import { overviewRange, overviewRow } from "./overview.ts";

const TODAY = day("2026-03-18");
const steps = testColumn("steps", {
  type: "integer",
  daily_agg: "sum",
  goal: { op: "at_least", value: 8000, per: "day", times: null },
});
const workout = testColumn("workout", {
  type: "boolean",
  daily_agg: "any",
  goal: { op: "true", value: null, per: "week", times: 4 },
});

// 28 days of 6000 steps before this week, then 9000, "skip", and nothing yet today.
const stepValues = new Map<DayNumber, DayValue>();
for (let d = day("2026-02-16"); d < day("2026-03-16"); d++) stepValues.set(d, 6000);
stepValues.set(day("2026-03-16"), 9000);
stepValues.set(day("2026-03-17"), "skip");
const workoutValues = new Map<DayNumber, DayValue>([
  [day("2026-03-16"), true],
  [day("2026-03-17"), false],
]);
const record = testRecord({
  columns: [steps, workout],
  values: { steps: stepValues, workout: workoutValues },
});

Deno.test("a day row: state, goal_met, streak and change against the previous 28 days", () => {
  const monday = overviewRow({
    record,
    column: steps,
    period: "day",
    range: overviewRange("day", day("2026-03-16"), TODAY),
  });
  assert.equal(monday.state, "value");
  assert.equal(monday.value, 9000);
  assert.equal(monday.goal_met, true);
  assert.equal(monday.streak_current, 1);
  assert.equal(monday.baseline_28d, 6000);
  assert.equal(monday.delta_vs_baseline, 3000);

  assert.equal(
    overviewRow({
      record,
      column: steps,
      period: "day",
      range: overviewRange("day", TODAY - 1, TODAY),
    }).state,
    "skip",
  );
  const today = overviewRow({
    record,
    column: steps,
    period: "day",
    range: overviewRange("day", TODAY, TODAY),
  });
  assert.equal(today.state, "pending");
  assert.equal(today.value, null);
  assert.equal(today.delta_vs_baseline, null);
  // Below goal for weeks, then 9000 on Monday; the skip is neutral and today is pending.
  assert.equal(today.streak_current, 1);
  const past = overviewRow({
    record,
    column: steps,
    period: "day",
    range: overviewRange("day", day("2026-02-01"), TODAY),
  });
  assert.equal(past.state, "missing");
});

Deno.test("overviewRow() a week row aggregates by daily_agg up to today and reports weekly progress", () => {
  const range = overviewRange("week", TODAY, TODAY);
  assert.deepEqual(range, { start: day("2026-03-16"), end: TODAY });
  const s = overviewRow({ record, column: steps, period: "week", range });
  assert.deepEqual([s.value, s.agg, s.n_days, s.mean_per_day], [9000, "sum", 1, 9000]);
  assert.deepEqual(s.progress, { done: 1, target: 1 });
  const w = overviewRow({ record, column: workout, period: "week", range });
  assert.deepEqual([w.value, w.agg], [1, "sum"]);
  assert.deepEqual(w.progress, { done: 1, target: 4 });
  assert.equal(w.baseline_28d, null); // no workouts logged before this week
});
