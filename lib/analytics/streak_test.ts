import assert from "node:assert/strict";
import { type DayNumber, formatDay, weekdayOf } from "../foundation/dates.ts";
import type { Column, DayValue } from "../record/types.ts";
import { day, testColumn } from "./_test_record.ts";
import { computeStreak, proratedWeeklyTarget, type Run, streakRule } from "./streak.ts";

const TODAY = day("2026-03-18"); // a Wednesday

/**
 * A series from a picture of days ending today: `Y` qualifies, `N` is below goal, `S` is an
 * explicit skip, `.` is missing. The last character is today.
 */
function days(picture: string, today = TODAY): Map<DayNumber, DayValue> {
  const out = new Map<DayNumber, DayValue>();
  [...picture].forEach((ch, i) => {
    const d = today - picture.length + 1 + i;
    if (ch === "Y") out.set(d, 12);
    else if (ch === "N") out.set(d, 3);
    else if (ch === "S") out.set(d, "skip");
  });
  return out;
}

const minutes = testColumn("meditation_min", {
  type: "integer",
  goal: { op: "at_least", value: 10, per: "day", times: null },
});
const weight = testColumn("weight_kg", {
  direction: "lower_better",
  goal: { op: "at_most", value: 10, per: "day", times: null },
  missing_policy: "neutral",
});
const workout = testColumn("workout", {
  type: "boolean",
  goal: { op: "true", value: null, per: "week", times: 4 },
});

const dates = (run: Run | null) =>
  run ? [run.length, formatDay(run.start), formatDay(run.end)] : null;

Deno.test("skip days are neutral: they neither break nor extend the run", () => {
  const s = computeStreak(minutes, days("NYYSSYY"), TODAY);
  assert.deepEqual(dates(s.current), [4, "2026-03-13", "2026-03-18"]);
  assert.equal(s.skippedDaysInCurrent, 2);
  assert.equal(s.status, "active_today");
});

Deno.test("computeStreak() a missing day breaks a daily habit but not a spot measurement", () => {
  const picture = "NYY.YYY";
  const habit = computeStreak(minutes, days(picture), TODAY);
  assert.equal(habit.unit, "day");
  assert.deepEqual(dates(habit.current), [3, "2026-03-16", "2026-03-18"]);
  assert.deepEqual(habit.lastBroken, { date: day("2026-03-15"), reason: "missing" });

  // For weight, `Y` (12) is above the ≤ 10 goal, so picture the measurements the other way round.
  const measured = new Map<DayNumber, DayValue>([
    [TODAY - 6, 11],
    [TODAY - 5, 9],
    [TODAY - 4, 9.5],
    [TODAY - 2, 8],
    [TODAY, 9.9],
  ]);
  const spot = computeStreak(weight, measured, TODAY);
  assert.equal(spot.unit, "measurement");
  assert.deepEqual(dates(spot.current), [4, "2026-03-13", "2026-03-18"]);
  assert.deepEqual(spot.lastBroken, null);
  assert.match(streakRule(weight), /days without a measurement and skip days are ignored/);
});

Deno.test("today only helps: pending or below goal today leaves the run at risk, not broken", () => {
  const pending = computeStreak(minutes, days("NYYY."), TODAY);
  assert.deepEqual(dates(pending.current), [3, "2026-03-15", "2026-03-17"]);
  assert.equal(pending.status, "at_risk");
  assert.equal(pending.todayState, "pending");

  const below = computeStreak(minutes, days("NYYYN"), TODAY);
  assert.equal(below.current!.length, 3);
  assert.equal(below.status, "at_risk");
  assert.equal(below.todayState, "below_goal");
  // The leading N ended no run, so nothing has been broken yet.
  assert.equal(below.lastBroken, null);

  const done = computeStreak(minutes, days("NYYYY"), TODAY);
  assert.deepEqual(dates(done.current), [4, "2026-03-15", "2026-03-18"]);
  assert.equal(done.status, "active_today");
});

Deno.test("computeStreak() a below-goal or missing yesterday means broken, unless today already qualifies", () => {
  const broken = computeStreak(minutes, days("YYYN."), TODAY);
  assert.equal(broken.current, null);
  assert.equal(broken.status, "broken");
  assert.deepEqual(broken.lastBroken, { date: TODAY - 1, reason: "below_goal" });
  assert.deepEqual(dates(broken.longest), [3, "2026-03-14", "2026-03-16"]);

  const restarted = computeStreak(minutes, days("YYY.Y"), TODAY);
  assert.deepEqual(dates(restarted.current), [1, "2026-03-18", "2026-03-18"]);
  assert.equal(restarted.status, "active_today");
  assert.equal(restarted.isRecord, false);
});

Deno.test("computeStreak() skip today keeps the run alive with nothing to do", () => {
  const s = computeStreak(minutes, days("YYS"), TODAY);
  assert.equal(s.status, "active");
  assert.equal(s.todayState, "skip");
  assert.equal(s.current!.length, 2);
  assert.equal(s.skippedDaysInCurrent, 1);
});

Deno.test("computeStreak() longest ties go to the most recent run; top streaks are the five longest, newest first", () => {
  // From 2026-02-27, runs end on 03-01 (3), 03-03 (1), 03-07 (3), 03-10 (2), 03-13 (2),
  // 03-15 (1) and 03-18 (2, current).
  const s = computeStreak(minutes, days("YYYNYNYYYNYYNYYNYNYY"), TODAY);
  assert.deepEqual(dates(s.longest), [3, "2026-03-05", "2026-03-07"]);
  assert.deepEqual(s.top.map((r) => r.length), [2, 2, 2, 3, 3]);
  assert.deepEqual(s.top.map((r) => formatDay(r.end)), [
    "2026-03-18",
    "2026-03-13",
    "2026-03-10",
    "2026-03-07",
    "2026-03-01",
  ]);
  assert.equal(s.isRecord, false);
});

Deno.test("computeStreak() is_record when the current run equals the longest", () => {
  const s = computeStreak(minutes, days("YYNYY."), TODAY);
  assert.equal(s.isRecord, true);
  assert.deepEqual(dates(s.longest), [2, "2026-03-16", "2026-03-17"]);
});

Deno.test("computeStreak() a column without a goal has a logging streak", () => {
  const mood = testColumn("mood", { type: "scale", scale_min: 1, scale_max: 5 });
  const s = computeStreak(mood, days("Y.NNY."), TODAY);
  assert.deepEqual(dates(s.current), [3, "2026-03-15", "2026-03-17"]);
  assert.match(streakRule(mood), /logging streak/);
});

Deno.test("computeStreak() never_started for an empty column or one that never qualified", () => {
  assert.equal(computeStreak(minutes, new Map(), TODAY).status, "never_started");
  const never = computeStreak(minutes, days("NNN."), TODAY);
  assert.equal(never.status, "never_started");
  assert.equal(never.longest, null);
  assert.deepEqual(never.top, []);
});

/** Workout days for the weeks ending with the current week; `weeks[i]` is Monday…Sunday. */
function workoutWeeks(weeks: string[]): Map<DayNumber, DayValue> {
  const out = new Map<DayNumber, DayValue>();
  const firstMonday = TODAY - weekdayOf(TODAY) - 7 * (weeks.length - 1);
  weeks.forEach((week, w) =>
    [...week].forEach((ch, i) => {
      const d = firstMonday + 7 * w + i;
      if (ch === "Y") out.set(d, true);
      else if (ch === "N") out.set(d, false);
      else if (ch === "S") out.set(d, "skip");
    })
  );
  return out;
}

Deno.test("weekly goals: pro-rated target ceil(times × (7 − skips) / 7)", () => {
  assert.equal(proratedWeeklyTarget(4, 0), 4);
  assert.equal(proratedWeeklyTarget(4, 3), 3);
  assert.equal(proratedWeeklyTarget(4, 5), 2);
  assert.equal(proratedWeeklyTarget(4, 7), 0);
  // Week 2 has three skips, so three workouts are enough; week 3 has one skip and only three.
  const s = computeStreak(
    workout,
    workoutWeeks(["YNYNYYN", "YSSSYNY", "YSYNYNN", "YNY...."]),
    TODAY,
  );
  assert.equal(s.unit, "week");
  assert.equal(s.current, null);
  assert.equal(s.status, "broken");
  assert.deepEqual(dates(s.longest), [2, "2026-02-23", "2026-03-08"]);
  assert.deepEqual(s.lastBroken, { date: day("2026-03-09"), reason: "below_goal" });
});

Deno.test("weekly goals: the current week is pending until met, then counts", () => {
  const pending = computeStreak(workout, workoutWeeks(["YNYNYYN", "YYNYYNN", "YN."]), TODAY);
  assert.deepEqual(dates(pending.current), [2, "2026-03-02", "2026-03-15"]);
  assert.equal(pending.status, "at_risk");
  assert.deepEqual(
    pending.currentWeek && {
      done: pending.currentWeek.done,
      target: pending.currentWeek.target,
      remaining: pending.currentWeek.remainingDays,
      state: pending.currentWeek.state,
    },
    { done: 1, target: 4, remaining: 5, state: "pending" },
  );

  const threeTimes: Column = { ...workout, goal: { ...workout.goal!, times: 3 } };
  const met = computeStreak(threeTimes, workoutWeeks(["YNYNYYN", "YYNYYNN", "YYY"]), TODAY);
  assert.deepEqual(dates(met.current), [3, "2026-03-02", "2026-03-18"]);
  assert.equal(met.status, "active_today");
  assert.equal(met.currentWeek!.remainingDays, 4);
});

Deno.test("weekly goals: an all-skip week is neutral and its skips are reported", () => {
  const s = computeStreak(workout, workoutWeeks(["YYYYNNN", "SSSSSSS", "YYNYYNN", "Y.."]), TODAY);
  assert.deepEqual(dates(s.current), [2, "2026-02-23", "2026-03-15"]);
  assert.equal(s.skippedDaysInCurrent, 7);
});
