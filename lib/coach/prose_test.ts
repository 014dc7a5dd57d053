import assert from "node:assert/strict";
import type { MemberRecord } from "../record/types.ts";
import { series, testColumn, testRecord } from "../analytics/_test_record.ts";
import { analyseRecord } from "./analyse.ts";
import { weeklyReviewDraft } from "./event_findings.ts";
import type { Draft } from "./draft.ts";
import { everyKindRecord, TODAY, wordingFaults } from "./_test_every_kind.ts";

/** Every draft of both depths and the weekly review. */
function allDrafts(record: MemberRecord): Draft[] {
  return [
    ...analyseRecord(record, "paid").drafts,
    ...analyseRecord(record, "free").drafts,
    weeklyReviewDraft(record, 1),
  ];
}

Deno.test("analyseRecord() coach findings of every kind name columns by label, with no doubled word and right plurals", () => {
  const drafts = allDrafts(everyKindRecord());
  const kinds = new Set(drafts.map((d) => `${d.type}:${d.detail.replace(/=.*/, "")}`));
  for (
    const kind of [
      "correlation:lag",
      "factor_effect:lag",
      "trend:days",
      "weekday_pattern:weekday",
      "period_comparison:year_over_year",
      "streak_milestone:at_risk",
      "streak_milestone:milestone",
      "record:best_day",
      "goal_miss:week",
      "anomaly:high",
      "coverage:gap",
      "coverage:unlock",
      "weekly_review:review",
    ]
  ) assert.ok(kinds.has(kind), `${kind} missing from ${[...kinds].join(", ")}`);
  const faults = drafts.flatMap((d) => wordingFaults(d.text).map((f) => `${f} in: ${d.text}`));
  // a mood level (a 1–5 scale) is quoted with its scale
  for (const d of drafts.filter((d) => d.metrics.at(-1) === "md" && d.type !== "correlation")) {
    if (!/\d of 5\b/.test(d.text)) faults.push(`scale missing in: ${d.text}`);
  }
  assert.deepEqual(faults, []);
});

Deno.test("analyseRecord() free on three years of data says what its 180 days hold, not “not enough yet”", () => {
  const columns = [
    testColumn("zs", { label: "Sleep hours", unit: "h" }),
    testColumn("zf", { label: "Time with friends", unit: "min", daily_agg: "sum" }),
  ];
  // daily for three years, then every tenth day in the last 180: 18 days with both
  const logged = (i: number, days: number) => i < days - 180 || i % 10 === 0;
  const days = 3 * 365;
  const record = testRecord({
    columns,
    values: {
      zs: series(TODAY, days, (_d, i) => logged(i, days) ? 6 + (i % 4) / 2 : undefined),
      zf: series(TODAY, days, (_d, i) => logged(i, days) ? 30 * (i % 3) : undefined),
    },
  });
  const unlock = analyseRecord(record, "free").drafts.find((d) => d.detail === "unlock");
  assert.ok(unlock, "the free coach says why it tests no link");
  assert.doesNotMatch(unlock.text, /not enough yet/i);
  assert.match(
    unlock.text,
    /^At this depth the coach reads the last 180 days \(since 2025-09-20\): in them, 18 days have both sleep hours and time with friends logged, and it needs 21 /,
  );
  assert.deepEqual(wordingFaults(unlock.text), []);
});
