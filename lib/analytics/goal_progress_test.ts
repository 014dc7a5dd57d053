import assert from "node:assert/strict";
import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";
import { day, testColumn } from "./_test_record.ts";
import { dailyAttainment, goalProgress, periodRange, weeklyProgress } from "./goal_progress.ts";

const TODAY = day("2026-03-18"); // Wednesday
const MONDAY = day("2026-03-16");

const steps = testColumn("steps", {
  type: "integer",
  goal: { op: "at_least", value: 8000, per: "day", times: null },
});
const workout = testColumn("workout", {
  type: "boolean",
  goal: { op: "true", value: null, per: "week", times: 4 },
});

const mapOf = (entries: [string, DayValue][]) =>
  new Map<DayNumber, DayValue>(entries.map(([d, v]) => [day(d), v]));

Deno.test("periodRange() gives the day, its ISO week, or its calendar month", () => {
  assert.deepEqual(periodRange("week", TODAY), { start: MONDAY, end: MONDAY + 6 });
  assert.deepEqual(periodRange("month", TODAY), {
    start: day("2026-03-01"),
    end: day("2026-03-31"),
  });
  assert.deepEqual(periodRange("day", TODAY), { start: TODAY, end: TODAY });
});

Deno.test("goalProgress() skips are not eligible and a today that does not qualify yet is not held against the goal", () => {
  const values = mapOf([
    ["2026-03-16", 9000],
    ["2026-03-17", "skip"],
    ["2026-03-18", 4000],
  ]);
  assert.deepEqual(
    dailyAttainment({
      column: steps,
      series: values,
      range: { start: MONDAY, end: MONDAY + 6 },
      today: TODAY,
    }),
    {
      eligible: 1,
      met: 1,
    },
  );
  values.set(TODAY, 8500);
  assert.deepEqual(
    dailyAttainment({
      column: steps,
      series: values,
      range: { start: MONDAY, end: MONDAY + 6 },
      today: TODAY,
    }),
    {
      eligible: 2,
      met: 2,
    },
  );
});

Deno.test("weekly progress: done, pro-rated target, days left and pace", () => {
  const oneDone = mapOf([["2026-03-16", true], ["2026-03-17", false]]);
  assert.deepEqual(
    weeklyProgress({ column: workout, series: oneDone, date: TODAY, today: TODAY }),
    {
      done: 1,
      target: 4,
      remaining_days: 5,
      on_track: true, // ⌊4 × 2 / 7⌋ = 1 done by Tuesday
    },
  );
  const noneDone = mapOf([["2026-03-16", false], ["2026-03-17", false]]);
  assert.equal(
    weeklyProgress({ column: workout, series: noneDone, date: TODAY, today: TODAY }).on_track,
    false,
  );

  const withSkips = mapOf([
    ["2026-03-16", true],
    ["2026-03-17", true],
    ["2026-03-18", true],
    ["2026-03-20", "skip"],
    ["2026-03-21", "skip"],
    ["2026-03-22", "skip"],
  ]);
  assert.deepEqual(
    weeklyProgress({ column: workout, series: withSkips, date: TODAY, today: TODAY }),
    {
      done: 3,
      target: 3, // ceil(4 × 4 / 7)
      remaining_days: 1, // Thursday; today is logged and the weekend is skipped
      on_track: true,
    },
  );
});

Deno.test("goalProgress() a past week has no days left and is on track only if met", () => {
  const lastWeek = mapOf([["2026-03-09", true], ["2026-03-11", true], ["2026-03-13", true]]);
  assert.deepEqual(
    weeklyProgress({ column: workout, series: lastWeek, date: day("2026-03-10"), today: TODAY }),
    {
      done: 3,
      target: 4,
      remaining_days: 0,
      on_track: false,
    },
  );
});

Deno.test("goalProgress() weekly goals rate complete weeks; daily goals rate days", () => {
  const values = new Map<DayNumber, DayValue>();
  // Weeks 02-16 … 03-09: the two before 03-02 met (4 workouts), the two after missed (2).
  for (let monday = day("2026-02-16"); monday < MONDAY; monday += 7) {
    const done = monday < day("2026-03-02") ? 4 : 2;
    for (let i = 0; i < 7; i++) values.set(monday + i, i < done);
  }
  const row = goalProgress({
    column: workout,
    series: values,
    kind: "week",
    date: TODAY,
    today: TODAY,
  });
  // 30 days ending 03-18 hold the complete weeks ending 02-22, 03-01, 03-08 and 03-15.
  assert.equal(row.rate_30d, 0.5);
  assert.equal(row.rate_prev_30d, null); // every week before 02-16 predates the first entry
  assert.deepEqual(row.period, { start: "2026-03-16", end: "2026-03-22" });
  // Nothing logged this week: Monday and Tuesday count as missed, pending today does not.
  assert.deepEqual([row.eligible_days, row.met_days, row.attainment_rate], [2, 0, 0]);

  const daily = goalProgress({
    column: steps,
    series: mapOf([["2026-03-16", 9000], ["2026-03-17", 100]]),
    kind: "week",
    date: TODAY,
    today: TODAY,
  });
  assert.equal(daily.attainment_rate, 0.5);
  assert.equal(daily.weekly, null);
  assert.equal(daily.rate_30d, 0.5);
  assert.equal(daily.rate_prev_30d, null);
});
