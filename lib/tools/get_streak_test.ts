import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getStreak } from "./get_streak.ts";

Deno.test("get_streak() returns its declared output for every synthetic column", () => {
  const record = syntheticMember();
  for (const c of record.columns) {
    const result = getStreak.run(record, getStreak.input.parse({ metric: c.key }));
    assertValidResult(getStreak, result);
    assert.equal(result.metric, c.key);
    assert.equal(result.today, "2026-03-18");
  }
});

Deno.test("get_streak() input is exactly {metric}", () => {
  assert.throws(() => getStreak.input.parse({}));
  assert.throws(() => getStreak.input.parse({ metric: "mood", days: 30 }));
  assert.deepEqual(getStreak.input.parse({ metric: "mood" }), { metric: "mood" });
});

Deno.test("get_streak() on an unknown metric throws unknown_metric with suggestions", () => {
  assert.throws(
    () => getStreak.run(syntheticMember(), { metric: "meditation" }),
    (e: unknown) =>
      e instanceof AppError && e.code === "unknown_metric" &&
      (e.details!.did_you_mean as string[]).includes("meditation_min"),
  );
});

Deno.test("get_streak() reports weekly progress only for weekly goals", () => {
  const record = syntheticMember();
  const weekly = getStreak.run(record, { metric: "workout" });
  assert.deepEqual(weekly.current_week, {
    start: "2026-03-16",
    end: "2026-03-22",
    done: 1,
    target: 4,
    remaining_days: 5,
    state: "pending",
  });
  assert.equal(getStreak.run(record, { metric: "steps" }).current_week, null);
});
