import assert from "node:assert/strict";
import { weekdayOf } from "../foundation/dates.ts";
import {
  assertValidResult,
  day,
  seededRandom,
  series,
  testColumn,
  testRecord,
} from "../analytics/_test_record.ts";
import { getWeekdayPattern } from "./get_weekday_pattern.ts";

const today = day("2026-03-18");
const rnd = seededRandom(51);
// Monday low, Sunday high
const level = [2, 3, 3, 3, 3, 4, 5];

const record = testRecord({
  columns: [
    testColumn("mood", { type: "scale", scale_min: 1, scale_max: 5 }),
    testColumn("resting_hr", { direction: "lower_better" }),
    testColumn("noise", { direction: "neutral" }),
    testColumn("weekly"),
    testColumn("constant"),
  ],
  values: {
    mood: series(today, 91, (d) => level[weekdayOf(d)] + Math.round(rnd() - 0.5)),
    resting_hr: series(today, 91, (d) => 60 + level[weekdayOf(d)] + rnd()),
    // its own generator: with this seed KW p ≈ 0.96 (any seed has a 5 % chance of p < 0.05)
    noise: series(today, 91, seededRandom(3)),
    // only logged on Mondays and Thursdays
    weekly: series(
      today,
      91,
      (d) => (weekdayOf(d) === 0 || weekdayOf(d) === 3 ? rnd() : undefined),
    ),
    constant: series(today, 91, () => 1),
  },
});

function call(args: Record<string, unknown>) {
  const result = getWeekdayPattern.run(record, getWeekdayPattern.input.parse(args));
  assertValidResult(getWeekdayPattern, result);
  return result;
}

Deno.test("get_weekday_pattern() finds a clear Monday-low, Sunday-high pattern", () => {
  const r = call({ metric: "mood" });
  assert.equal(r.n, 90);
  assert.deepEqual(r.by_weekday.map((w) => w.weekday), [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
  ]);
  assert.equal(r.lowest_weekday, "Monday");
  assert.equal(r.highest_weekday, "Sunday");
  assert.equal(r.best_weekday, "Sunday");
  assert.equal(r.worst_weekday, "Monday");
  assert.equal(r.pattern_strength, "clear");
  assert.ok(r.eta_squared! > 0.5);
  assert.deepEqual([r.p_value, r.p_text], [0.001, "< 0.001"]); // floored on output (#12)
  const monday = r.by_weekday[0];
  assert.equal(monday.delta_vs_overall, Math.round((monday.mean! - r.overall_mean!) * 100) / 100);
});

Deno.test("get_weekday_pattern() lower_better flips best/worst; neutral has none", () => {
  const hr = call({ metric: "resting_hr" });
  assert.equal(hr.best_weekday, "Monday");
  assert.equal(hr.worst_weekday, "Sunday");
  const noise = call({ metric: "noise" });
  assert.equal(noise.best_weekday, null);
  assert.equal(noise.pattern_strength, "none");
  assert.ok(noise.p_value! > 0.05);
});

Deno.test("get_weekday_pattern() thin weekdays get null means; degenerate data is withheld", () => {
  const thin = call({ metric: "weekly", days: 14 });
  assert.deepEqual(thin.by_weekday.map((w) => w.n), [2, 0, 0, 2, 0, 0, 0]);
  assert.ok(thin.by_weekday.every((w) => w.mean === null));
  assert.deepEqual(thin.withheld, { reason: "too_few_weekdays", needed: 2, have: 0 });
  assert.equal(thin.highest_weekday, null);
  const flat = call({ metric: "constant" });
  assert.deepEqual(flat.withheld, { reason: "zero_variance", needed: 2, have: 1 });
  assert.equal(flat.eta_squared, null);
  const empty = getWeekdayPattern.run(
    testRecord({ columns: [testColumn("x")], values: {} }),
    getWeekdayPattern.input.parse({ metric: "x" }),
  );
  assertValidResult(getWeekdayPattern, empty);
  assert.equal(empty.overall_mean, null);
});

Deno.test("get_weekday_pattern: slow swings (a sick fortnight, a good month) are not a weekday pattern", () => {
  // AR(1) with φ = 0.9 and no weekday effect: weekdays differ by chance more than independent days
  // would, so the test runs on the effective number of days
  const gen = seededRandom(52);
  let e = 0;
  const drifting = series(today, 180, () => {
    e = 0.9 * e + Math.sqrt(1 - 0.81) * (gen() + gen() + gen() - 1.5) * 2;
    return e;
  });
  const slow = testRecord({ columns: [testColumn("slow")], values: { slow: drifting } });
  const r = getWeekdayPattern.run(
    slow,
    getWeekdayPattern.input.parse({ metric: "slow", days: 180 }),
  );
  assertValidResult(getWeekdayPattern, r);
  assert.ok(r.n_eff! < 0.5 * r.n, `n_eff ${r.n_eff} of ${r.n}`);
  // the real weekly rhythm of the fixture above is still clear
  assert.ok(call({ metric: "mood" }).n_eff! > 60);
});
