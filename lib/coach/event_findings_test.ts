import assert from "node:assert/strict";
import type { DayValue } from "../record/types.ts";
import { day, testColumn, testRecord } from "../analytics/_test_record.ts";
import { eventDrafts } from "./event_findings.ts";

Deno.test("eventDrafts() says a weekly goal at risk as this week's “k of n”", () => {
  // today 2026-11-22 is a Sunday; four met weeks (Mon/Wed/Fri) and 2 done this week so far
  const workout = testColumn("workout", {
    label: "Workout",
    type: "boolean",
    goal: { op: "true", value: null, per: "week", times: 3 },
  });
  const values = new Map<number, DayValue>();
  for (let monday = day("2026-10-19"); monday <= day("2026-11-09"); monday += 7) {
    for (const offset of [0, 2, 4]) values.set(monday + offset, true);
  }
  values.set(day("2026-11-17"), true);
  values.set(day("2026-11-19"), true);
  values.set(day("2026-11-21"), false);
  const record = testRecord({
    today: "2026-11-22",
    columns: [workout],
    values: { workout: values },
  });
  const risk = eventDrafts(record).find((d) => d.detail === "at_risk");
  assert.ok(risk, "the run of 4 weeks is at risk");
  assert.equal(
    risk.text,
    "Your 4-week workout streak (since 2026-10-19) is at risk: 2 of 3 this week so far, with " +
      "1 day left to reach the goal. Your longest is 4 weeks.",
  );
});
