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
  assert.ok(r.p_value! < 1e-6);
  assert.match(r.sentence, /^1 day after days with workout your mood averaged [\d.]+ pts, against/);
  const same = call({ factor: "workout", outcome: "mood" });
  assert.ok(Math.abs(same.difference!) < 0.3, `same-day difference ${same.difference}`);
});

Deno.test("get_factor_effect() numeric factor thresholds come from argument, goal or median", () => {
  const goal = call({ factor: "steps", outcome: "mood" });
  assert.equal(goal.threshold, 8000);
  assert.equal(goal.threshold_source, "goal");
  assert.equal(goal.factor_rule, "steps ≥ 8000");
  assert.ok(goal.difference! > 0.2);
  const median = call({ factor: "plain", outcome: "mood" });
  assert.equal(median.threshold_source, "median");
  assert.ok(Math.abs(median.with.n - median.without.n) <= 1);
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
