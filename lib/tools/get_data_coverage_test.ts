import assert from "node:assert/strict";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getDataCoverage } from "./get_data_coverage.ts";

const record = syntheticMember();

Deno.test("get_data_coverage() returns one valid row per column", () => {
  const result = getDataCoverage.run(record, getDataCoverage.input.parse({}));
  assertValidResult(getDataCoverage, result);
  assert.equal(result.columns.length, record.columns.length);
  assert.deepEqual(result.range, { start: "2026-02-17", end: "2026-03-18" });
  assert.equal(result.overall.days_with_any_entry, 30);
});

Deno.test("get_data_coverage() of a window before meditation started has no completeness for it", () => {
  const result = getDataCoverage.run(
    record,
    getDataCoverage.input.parse({ start: "2025-12-01", end: "2025-12-31" }),
  );
  assertValidResult(getDataCoverage, result);
  const meditation = result.columns.find((c) => c.metric === "meditation_min")!;
  assert.deepEqual([meditation.completeness, meditation.last_logged], [null, null]);
});
