import assert from "node:assert/strict";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getPersonalBests } from "./get_personal_bests.ts";

const record = syntheticMember();

Deno.test("get_personal_bests() returns valid records for every column", () => {
  for (const c of record.columns) {
    const result = getPersonalBests.run(
      record,
      getPersonalBests.input.parse({ metric: c.key, top: 5 }),
    );
    assertValidResult(getPersonalBests, result);
    if (c.type !== "boolean") assert.equal(result.best_days.length, 5);
  }
});

Deno.test("get_personal_bests() resting heart rate is lower-better", () => {
  const result = getPersonalBests.run(
    record,
    getPersonalBests.input.parse({ metric: "resting_hr" }),
  );
  assert.equal(result.best_is, "lowest");
  assert.deepEqual(result.worst_days[0], { date: "2026-03-06", value: 74 });
  assert.ok(result.best_days.every((d) => d.value <= result.worst_days[0].value));
});
