import assert from "node:assert/strict";
import type { DayValue } from "../record/types.ts";
import { day, testColumn, testRecord } from "../analytics/_test_record.ts";
import { computeTrend } from "../analytics/trend.ts";
import { statisticalDrafts } from "./stat_findings.ts";

Deno.test("statisticalDrafts() quotes a time-of-day trend as clock times round midnight", () => {
  const bedtime = testColumn("bedtime", {
    label: "Bedtime",
    type: "time_of_day",
    direction: "neutral",
    daily_agg: "last",
  });
  const today = day("2026-03-18");
  // 28 nights at 23:30/23:50, then 28 at 00:10/00:30: forty minutes later, across midnight
  const values = new Map<number, DayValue>();
  for (let i = 0; i < 56; i++) {
    const late = i >= 28 ? 40 : 0;
    values.set(today - 55 + i, (1410 + late + (i % 2) * 20) % 1440);
  }
  const record = testRecord({ columns: [bedtime], values: { bedtime: values } });
  const t = computeTrend({ record, column: bedtime, current: { start: today - 27, end: today } });
  const passed = [{
    kind: "trend" as const,
    column: bedtime,
    window: 28,
    t,
    id: "x",
    p: t.p,
    q: 0.001,
  }];
  const screen = { range: { start: today - 55, end: today }, testsRun: 5, passed, unlocks: [] };
  const [draft] = statisticalDrafts(record, screen, "paid");
  assert.match(
    draft.text,
    /^Trend in your bedtime: increasing, an average of 00:20 over the last 28 days \(2026-02-19 to 2026-03-18\) against 23:40 in the 28 days before\./,
  );
});
