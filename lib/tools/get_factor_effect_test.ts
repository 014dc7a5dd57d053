import assert from "node:assert/strict";
import type { DayValue } from "../record/types.ts";
import { AppError } from "../foundation/errors.ts";
import {
  assertValidResult,
  day,
  seededRandom,
  series,
  testColumn,
  testRecord,
} from "../analytics/_test_record.ts";
import { getFactorEffect } from "./get_factor_effect.ts";
import { weekdayOf } from "../foundation/dates.ts";

const today = day("2026-03-18");
const rnd = seededRandom(61);
const workout = series(today, 200, (_d, i) => (i % 10 === 9 ? "skip" : rnd() < 0.5));
const steps = series(today, 200, () => 4000 + Math.round(8000 * rnd()));
// mood is 1 point higher the day after a workout, and 0.5 higher on days with ≥ 8000 steps
const mood = new Map<number, DayValue>();
for (let d = today - 199; d <= today - 1; d++) {
  const w = workout.get(d - 1), s = steps.get(d) as number;
  mood.set(d, 3 + (w === true ? 1 : 0) + (s >= 8000 ? 0.5 : 0) + 0.6 * (rnd() - 0.5));
}
const record = testRecord({
  columns: [
    testColumn("workout", { label: "Workout", type: "boolean" }),
    testColumn("steps", {
      label: "Steps",
      goal: { op: "at_least", value: 8000, per: "day", times: null },
    }),
    testColumn("plain"),
    testColumn("mood", { label: "Mood", type: "scale", unit: "pts" }),
    testColumn("rare", { type: "boolean" }),
  ],
  values: {
    workout,
    steps,
    plain: steps,
    mood,
    rare: series(today, 200, (_d, i) => i % 50 === 0),
  },
});

function call(args: Record<string, unknown>) {
  const result = getFactorEffect.run(record, getFactorEffect.input.parse(args));
  assertValidResult(getFactorEffect, result);
  return result;
}

Deno.test("get_factor_effect() a yes/no factor with a lag", () => {
  const r = call({ factor: "workout", outcome: "mood", lag_days: 1 });
  assert.equal(r.factor_rule, "workout = yes");
  assert.equal(r.threshold, null);
  assert.equal(r.threshold_source, null);
  assert.ok(r.with.n >= 5 && r.without.n >= 5);
  // factor days today−179 … today−2 (mood is pending today) = 178, minus 17 skips
  assert.equal(r.with.n + r.without.n, 161);
  assert.ok(Math.abs(r.difference! - 1) < 0.25, `difference ${r.difference}`);
  assert.equal(r.effect_size_label, "large");
  // workouts here fall on random days, so removing weekday and trend changes little
  assert.ok(Math.abs(r.adjusted_difference! - r.difference!) < 0.15, `${r.adjusted_difference}`);
  assert.deepEqual([r.p_value, r.p_text], [0.001, "< 0.001"]);
  assert.deepEqual(r.adjustments.detrend_applied, ["weekday_trend"]);
  assert.ok(r.n_eff! > 100 && r.n_eff! <= 161, `n_eff ${r.n_eff}`);
  assert.match(r.sentence, /With your weekday rhythm and trend taken into account the difference/);
  assert.match(r.sentence, /^1 day after days with workout your mood averaged [\d.]+ pts, against/);
  const same = call({ factor: "workout", outcome: "mood" });
  assert.ok(Math.abs(same.difference!) < 0.3, `same-day difference ${same.difference}`);
});

Deno.test("get_factor_effect() numeric factor thresholds come from argument, goal or the balanced cut", () => {
  const goal = call({ factor: "steps", outcome: "mood" });
  assert.equal(goal.threshold, 8000);
  assert.equal(goal.threshold_source, "goal");
  assert.equal(goal.factor_rule, "steps ≥ 8000");
  assert.ok(goal.difference! > 0.2);
  assert.equal(goal.split_note, null);
  const balanced = call({ factor: "plain", outcome: "mood" });
  assert.equal(balanced.threshold_source, "balanced");
  assert.ok(Math.abs(balanced.with.n - balanced.without.n) <= 1);
  assert.match(
    balanced.split_note!,
    /^Split at \d+, the observed level that divides the days most/,
  );
  const given = call({ factor: "steps", outcome: "mood", threshold: 11000 });
  assert.equal(given.threshold, 11000);
  assert.equal(given.threshold_source, "argument");
  assert.ok(given.with.n < goal.with.n);
});

Deno.test("get_factor_effect() withheld below 5 days per group", () => {
  const r = call({ factor: "rare", outcome: "mood", days: 60 });
  assert.deepEqual(r.withheld, { reason: "group_too_small", needed: 5, have: 1 });
  assert.equal(r.difference, null);
  assert.equal(r.p_value, null);
  assert.match(r.sentence, /smaller group has 1 day, 5 needed/);
  const empty = getFactorEffect.run(
    testRecord({ columns: [testColumn("f"), testColumn("o")], values: {} }),
    getFactorEffect.input.parse({ factor: "f", outcome: "o" }),
  );
  assertValidResult(getFactorEffect, empty);
  assert.equal(empty.threshold, null);
  assert.equal(empty.with.mean, null);
});

Deno.test("get_factor_effect() bad arguments", () => {
  assert.throws(
    () => call({ factor: "mood", outcome: "mood" }),
    (e: unknown) => e instanceof AppError && e.code === "invalid_request",
  );
  assert.throws(
    () => call({ factor: "workouts", outcome: "mood" }),
    (e: unknown) => e instanceof AppError && e.code === "unknown_metric",
  );
  assert.equal(
    getFactorEffect.input.safeParse({ factor: "a", outcome: "b", lag_days: 4 }).success,
    false,
  );
});

Deno.test("get_factor_effect() a 1–5 factor tied at its median gets the balanced split and says why", () => {
  // 162 days: 17 at 2, 70 at 3, 60 at 4, 15 at 5 — the median is 3, so "≥ median" is 145 vs 17
  const levels = [
    ...Array(17).fill(2),
    ...Array(70).fill(3),
    ...Array(60).fill(4),
    ...Array(15).fill(5),
  ];
  const shuffle = seededRandom(62);
  const order = levels.map((v) => [shuffle(), v]).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
  const scaled = testRecord({
    columns: [
      testColumn("mood", { type: "scale", scale_min: 1, scale_max: 5 }),
      testColumn("steps"),
    ],
    values: {
      mood: series(today, 162, (_d, i) => order[i]),
      steps: series(today, 162, () => 4000 + Math.round(8000 * shuffle())),
    },
  });
  const r = getFactorEffect.run(
    scaled,
    getFactorEffect.input.parse({ factor: "mood", outcome: "steps" }),
  );
  assertValidResult(getFactorEffect, r);
  assert.equal(r.threshold, 4);
  assert.equal(r.threshold_source, "balanced");
  assert.deepEqual([r.with.n, r.without.n], [75, 87]);
  assert.equal(
    r.split_note,
    "Split at 4, the observed level that divides the days most evenly (75 vs 87 days). A " +
      "median split (≥ 3) would have given 145 vs 17 days: many days share that value.",
  );
});

Deno.test("get_factor_effect() a factor that rides on the weekday loses its effect once weekday is removed", () => {
  // workouts on Mondays and Saturdays only; mood is simply higher on Sundays and Tuesdays
  const rnd2 = seededRandom(63);
  const workoutDays = series(today, 120, (d) => [0, 5].includes(weekdayOf(d)));
  const moodByDay = series(
    today,
    120,
    (d) => 3 + ([1, 6].includes(weekdayOf(d)) ? 1 : 0) + rnd2() - 0.5,
  );
  const weekly = testRecord({
    columns: [testColumn("workout", { type: "boolean" }), testColumn("mood", { type: "scale" })],
    values: { workout: workoutDays, mood: moodByDay },
  });
  const run = (detrend: string) => {
    const r = getFactorEffect.run(
      weekly,
      getFactorEffect.input.parse({ factor: "workout", outcome: "mood", lag_days: 1, detrend }),
    );
    assertValidResult(getFactorEffect, r);
    return r;
  };
  const raw = run("none"), adjusted = run("weekday_trend");
  assert.equal(raw.effect_size_label, "large");
  assert.ok(raw.difference! > 0.8, `raw difference ${raw.difference}`);
  // every factor day is a Monday or Saturday, so weekday explains the whole difference
  assert.equal(adjusted.difference, raw.difference); // the as-logged means are still shown
  assert.ok(Math.abs(adjusted.adjusted_difference!) < 0.1, `${adjusted.adjusted_difference}`);
  assert.equal(adjusted.effect_size_label, "negligible");
  assert.equal(raw.adjustments.detrend_applied[0], "none");
});
