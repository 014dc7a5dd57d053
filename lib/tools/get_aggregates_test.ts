import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import { parseDay } from "../foundation/dates.ts";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getAggregates } from "./get_aggregates.ts";

const record = syntheticMember();

Deno.test("get_aggregates() returns valid buckets for every column", () => {
  for (const c of record.columns) {
    for (const bucket of ["day", "week", "month"]) {
      const result = getAggregates.run(
        record,
        getAggregates.input.parse({ metric: c.key, bucket }),
      );
      assertValidResult(getAggregates, result);
    }
  }
});

Deno.test("get_aggregates() sums steps by ISO week and rates workouts", () => {
  const steps = getAggregates.run(
    record,
    getAggregates.input.parse({ metric: "steps", start: "2026-02-02", end: "2026-02-08" }),
  );
  assert.equal(steps.agg_used, "sum");
  assert.equal(steps.buckets.length, 1);
  let sum = 0, n = 0;
  for (const [d, v] of record.values.get("steps")!) {
    if (d >= parseDay("2026-02-02")! && d <= parseDay("2026-02-08")! && typeof v === "number") {
      sum += v;
      n++;
    }
  }
  assert.deepEqual([steps.buckets[0].value, steps.buckets[0].n_days], [sum, n]);
  assert.ok(sum > 24312);
  const workout = getAggregates.run(record, getAggregates.input.parse({ metric: "workout" }));
  assert.equal(workout.agg_used, "rate");
});

Deno.test("get_aggregates() refuses rate on a column without goal or boolean type", () => {
  assert.throws(
    () => getAggregates.run(record, getAggregates.input.parse({ metric: "mood", agg: "rate" })),
    (e: unknown) => e instanceof AppError && e.code === "invalid_request",
  );
});

Deno.test("getAggregates() marks the weeks of the water gap partial and gives their daily mean", () => {
  // water is not logged 2026-02-26 … 03-03 (engineered): the weeks of 02-23 and 03-02 hold
  // fewer logged days, so their sums sit beside full weeks only with partial: true
  const water = getAggregates.run(
    record,
    getAggregates.input.parse({ metric: "water_l", start: "2026-02-16", end: "2026-03-15" }),
  );
  assertValidResult(getAggregates, water);
  const byStart = new Map(water.buckets.map((b) => [b.start, b]));
  for (const start of ["2026-02-23", "2026-03-02"]) {
    const week = byStart.get(start)!;
    assert.equal(week.partial, true, start);
    assert.ok(week.n_days <= 4, `${start}: ${week.n_days} days`);
    assert.equal(week.daily_mean, Math.round((week.value! / week.n_days) * 100) / 100);
  }
  assert.equal(water.partial_buckets, water.buckets.filter((b) => b.partial).length);
  assert.match(
    water.note,
    /partly logged \(partial: true\); their sums cover fewer days .* daily_mean/,
  );
});
