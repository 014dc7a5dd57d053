import assert from "node:assert/strict";
import {
  assertValidResult,
  day,
  series,
  testColumn,
  testRecord,
} from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getHabitStrength } from "./get_habit_strength.ts";

const record = syntheticMember();

Deno.test("get_habit_strength() returns valid results for every column, with and without series", () => {
  for (const c of record.columns) {
    const plain = getHabitStrength.run(record, getHabitStrength.input.parse({ metric: c.key }));
    assertValidResult(getHabitStrength, plain);
    assert.equal("series" in plain, false);
    const withSeries = getHabitStrength.run(
      record,
      getHabitStrength.input.parse({ metric: c.key, include_series: true, days: 14 }),
    );
    assertValidResult(getHabitStrength, withSeries);
    assert.ok(withSeries.series!.length <= 14 && withSeries.series!.length >= 13);
    assert.equal(withSeries.series!.at(-1)!.date, withSeries.as_of);
    assert.equal(withSeries.series!.at(-1)!.score, withSeries.score);
  }
});

Deno.test("get_habit_strength() change_7d is the score minus the score a week earlier", () => {
  const result = getHabitStrength.run(
    record,
    getHabitStrength.input.parse({ metric: "water_l", include_series: true, days: 9 }),
  );
  const series = result.series!;
  assert.ok(Math.abs(result.change_7d! - (series.at(-1)!.score - series.at(-8)!.score)) < 0.002);
});

Deno.test("getHabitStrength() says that a logging gap counted as missed, and a skip does not", () => {
  const today = day("2026-03-18");
  const habit = testColumn("stretch", {
    type: "boolean",
    goal: { op: "true", value: null, per: "day", times: null },
  });
  // 40 done days, then 5 days with no entry, then 5 skipped days, then 10 done days
  const values = series(
    today,
    60,
    (_d, i) => i >= 40 && i < 45 ? undefined : i >= 45 && i < 50 ? "skip" : true,
  );
  const gap = testRecord({ columns: [habit], values: { stretch: values } });
  const r = getHabitStrength.run(gap, getHabitStrength.input.parse({ metric: "stretch" }));
  assertValidResult(getHabitStrength, r);
  assert.deepEqual(r.missing_days, {
    policy: "counted_as_missed",
    counted_as_missed: 5,
    counted_as_missed_last_30_days: 5,
  });
  assert.match(r.note, /^5 days without an entry .* counted as missed: a logging gap lowers/);
  // the same days logged as skips instead leave nothing counted and a higher score
  const skipped = series(today, 60, (_d, i) => (i >= 40 && i < 50 ? "skip" : true));
  const clean = getHabitStrength.run(
    testRecord({ columns: [habit], values: { stretch: skipped } }),
    getHabitStrength.input.parse({ metric: "stretch" }),
  );
  assert.equal(clean.missing_days.counted_as_missed, 0);
  assert.ok(clean.score! > r.score!, `${clean.score} vs ${r.score}`);
});
