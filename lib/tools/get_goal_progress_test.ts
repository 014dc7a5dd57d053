import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getGoalProgress } from "./get_goal_progress.ts";

const record = syntheticMember();

Deno.test("get_goal_progress() covers every goal column for each period", () => {
  for (const period of ["day", "week", "month"]) {
    const result = getGoalProgress.run(record, getGoalProgress.input.parse({ period }));
    assertValidResult(getGoalProgress, result);
    assert.deepEqual(result.goals.map((g) => g.metric), [
      "workout",
      "sleep_hours",
      "steps",
      "water_l",
      "weight_kg",
      "meditation_min",
      "medication_taken",
    ]);
  }
});

Deno.test("get_goal_progress() refuses a column without a goal and a future date", () => {
  const invalid = (e: unknown) => e instanceof AppError && e.code === "invalid_request";
  assert.throws(
    () => getGoalProgress.run(record, getGoalProgress.input.parse({ metric: "mood" })),
    invalid,
  );
  assert.throws(
    () => getGoalProgress.run(record, getGoalProgress.input.parse({ date: "2026-04-01" })),
    invalid,
  );
});

Deno.test("get_goal_progress() for a past month counts every eligible day", () => {
  const result = getGoalProgress.run(
    record,
    getGoalProgress.input.parse({
      metric: "medication_taken",
      period: "month",
      date: "2026-02-10",
    }),
  );
  const [row] = result.goals;
  // February: 28 days, one skip (02-16), one false (02-04).
  assert.deepEqual([row.eligible_days, row.met_days], [27, 26]);
  assert.deepEqual(result.range, { start: "2026-02-01", end: "2026-02-28" });
});
