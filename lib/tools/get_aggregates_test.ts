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
