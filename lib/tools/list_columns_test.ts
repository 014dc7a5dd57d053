import assert from "node:assert/strict";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { listColumns } from "./list_columns.ts";

Deno.test("list_columns() takes no arguments and refuses unknown ones", () => {
  assert.deepEqual(listColumns.input.parse({}), {});
  assert.throws(() => listColumns.input.parse({ metric: "mood" }));
});

Deno.test("list_columns() reports metadata and entry extent of every column", () => {
  const result = listColumns.run(syntheticMember(), {});
  assertValidResult(listColumns, result);
  assert.deepEqual(result.range, { start: "2025-09-15", end: "2026-03-18" });
  const meditation = result.columns.find((c) => c.key === "meditation_min")!;
  assert.deepEqual(
    [meditation.first_date, meditation.last_date, meditation.days_logged],
    ["2026-01-02", "2026-03-17", 75],
  );
  const medication = result.columns.find((c) => c.key === "medication_taken")!;
  assert.equal(medication.days_logged, 184); // 185 days, one skipped
});
