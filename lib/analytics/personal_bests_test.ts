import assert from "node:assert/strict";
import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";
import { day, testColumn } from "./_test_record.ts";
import { personalBests } from "./personal_bests.ts";

const TODAY = day("2026-03-18"); // Wednesday

const steps = testColumn("steps", {
  type: "integer",
  daily_agg: "sum",
  goal: { op: "at_least", value: 8000, per: "day", times: null },
});
const weight = testColumn("weight", { direction: "lower_better", daily_agg: "mean" });

/** Values for the days ending `TODAY`, oldest first (`undefined` = missing). */
function ending(values: (DayValue | undefined)[]): Map<DayNumber, DayValue> {
  const out = new Map<DayNumber, DayValue>();
  values.forEach((v, i) => v !== undefined && out.set(TODAY - values.length + 1 + i, v));
  return out;
}

Deno.test("personalBests() best and worst days follow direction, ties going to the most recent", () => {
  const values = ending([5, 9, 7, 9, 3, 5]);
  const up = personalBests({
    column: steps,
    series: values,
    range: { start: TODAY - 5, end: TODAY },
    today: TODAY,
    top: 3,
  });
  assert.equal(up.best_is, "highest");
  assert.deepEqual(up.best_days, [
    { date: "2026-03-16", value: 9 },
    { date: "2026-03-14", value: 9 },
    { date: "2026-03-15", value: 7 },
  ]);
  assert.deepEqual(up.worst_days.map((d) => d.value), [3, 5, 5]);
  assert.equal(up.worst_days[1].date, "2026-03-18");
  assert.deepEqual(up.recent_records.includes("best_day"), true);

  const down = personalBests({
    column: weight,
    series: values,
    range: { start: TODAY - 5, end: TODAY },
    today: TODAY,
    top: 1,
  });
  assert.equal(down.best_is, "lowest");
  assert.deepEqual(down.best_days, [{ date: "2026-03-17", value: 3 }]);
  assert.deepEqual(down.worst_days, [{ date: "2026-03-16", value: 9 }]);
});

Deno.test("personalBests() a recent day that only ties an older best is no new record; one that beats it is", () => {
  const args = { column: steps, range: { start: TODAY - 13, end: TODAY }, today: TODAY, top: 1 };
  // 9 first reached 10 days ago; today ties it
  const tie = personalBests({
    ...args,
    series: ending([5, 5, 5, 9, 5, 5, 5, 5, 5, 5, 5, 5, 5, 9]),
  });
  assert.equal(tie.recent_records.includes("best_day"), false);
  const beat = personalBests({
    ...args,
    series: ending([5, 5, 5, 9, 5, 5, 5, 5, 5, 5, 5, 5, 5, 10]),
  });
  assert.deepEqual(beat.recent_records.includes("best_day"), true);
  // the same for the best 7-day mean: the last week only equals the first one
  const flat = ending([9, 9, 9, 9, 9, 9, 9, 1, 1, 1, 1, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9]);
  const mean = personalBests({ ...args, range: { start: TODAY - 20, end: TODAY }, series: flat });
  assert.equal(mean.recent_records.includes("best_7d_mean"), false);
});

Deno.test("personalBests() the best 7-day mean needs five values in its seven days", () => {
  const sparse = ending([10, undefined, 10, undefined, 10, undefined, 10, 1, 1, 1, 1, 1]);
  const s = personalBests({
    column: steps,
    series: sparse,
    range: { start: TODAY - 11, end: TODAY },
    today: TODAY,
    top: 3,
  });
  // Windows holding all four 10s have only four values (mean 10 would win); the best window
  // with five is 03-09…03-15: 10, 10, 10, 1, 1.
  assert.deepEqual(s.best_7d_mean, { start: "2026-03-09", end: "2026-03-15", value: 6.4, n: 5 });
  const tooSparse = personalBests({
    column: steps,
    series: ending([10, undefined, 10, undefined, 10, undefined, 10]),
    range: { start: TODAY - 6, end: TODAY },
    today: TODAY,
    top: 3,
  });
  assert.equal(tooSparse.best_7d_mean, null);
});

Deno.test("personalBests() best week and month use daily_agg over complete periods with half their days logged", () => {
  const values = new Map<DayNumber, DayValue>();
  // Week of 03-02: 4 days of 10 (sum 40); week of 03-09: 3 days of 20 (too few);
  // current week (03-16…): 100 per day but not complete.
  for (let i = 0; i < 4; i++) values.set(day("2026-03-02") + i, 10);
  for (let i = 0; i < 3; i++) values.set(day("2026-03-09") + i, 20);
  for (let d = day("2026-03-16"); d <= TODAY; d++) values.set(d, 100);
  const range = { start: day("2026-03-01"), end: TODAY };
  const s = personalBests({ column: steps, series: values, range: range, today: TODAY, top: 3 });
  assert.deepEqual(s.best_week, { start: "2026-03-02", end: "2026-03-08", value: 40, n_days: 4 });
  assert.equal(s.best_month, null);
  const w = personalBests({ column: weight, series: values, range: range, today: TODAY, top: 3 });
  assert.deepEqual(w.best_week, { start: "2026-03-02", end: "2026-03-08", value: 10, n_days: 4 });
});

Deno.test("personalBests() booleans have no best day; their weeks count days done", () => {
  const done = testColumn("done", {
    type: "boolean",
    daily_agg: "any",
    goal: { op: "true", value: null, per: "day", times: null },
  });
  const values = new Map<DayNumber, DayValue>();
  for (let d = day("2026-03-02"); d < day("2026-03-16"); d++) values.set(d, d % 3 !== 0);
  const s = personalBests({
    column: done,
    series: values,
    range: { start: day("2026-03-02"), end: TODAY },
    today: TODAY,
    top: 3,
  });
  assert.deepEqual(s.best_days, []);
  assert.ok(s.best_week!.value >= 4 && s.best_week!.value <= 5);
  assert.equal(s.longest_streak!.unit, "day");
});
