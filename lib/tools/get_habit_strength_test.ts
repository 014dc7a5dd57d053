import assert from "node:assert/strict";
import { assertValidResult } from "../analytics/_test_record.ts";
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
