import assert from "node:assert/strict";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getSummaryStats } from "./get_summary_stats.ts";

const record = syntheticMember();

Deno.test("get_summary_stats() returns valid statistics for every column", () => {
  for (const c of record.columns) {
    const result = getSummaryStats.run(record, getSummaryStats.input.parse({ metric: c.key }));
    assertValidResult(getSummaryStats, result);
    assert.equal(result.withheld, null);
  }
});

Deno.test("get_summary_stats() withholds numbers when the window has no values", () => {
  const result = getSummaryStats.run(
    record,
    getSummaryStats.input.parse({ metric: "meditation_min", end: "2025-12-31" }),
  );
  assertValidResult(getSummaryStats, result);
  assert.equal(result.mean, null);
  assert.deepEqual(result.withheld, { reason: "no_values", needed: 1, have: 0 });
});

Deno.test("get_summary_stats() finds the sick-day resting heart rate as the 30-day maximum", () => {
  const result = getSummaryStats.run(record, getSummaryStats.input.parse({ metric: "resting_hr" }));
  assert.deepEqual(result.max, { value: 74, date: "2026-03-06" });
});
