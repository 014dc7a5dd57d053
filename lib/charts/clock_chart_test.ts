import assert from "node:assert/strict";
import { dateWords } from "../../components/dates.ts";
import type { DayValue } from "../record/types.ts";
import { day, testColumn } from "../analytics/_test_record.ts";
import { buildSeriesChart } from "./series_chart.ts";

Deno.test("buildSeriesChart() draws bedtimes either side of midnight together and averages 00:00", () => {
  const bedtime = testColumn("bedtime", {
    label: "Bedtime",
    type: "time_of_day",
    direction: "neutral",
    daily_agg: "last",
  });
  const today = day("2026-03-18");
  const dates = dateWords("en-GB");
  // 23:30 and 00:30 alternating: the mean is midnight, the spread one hour
  const series = new Map<number, DayValue>();
  for (let i = 0; i < 10; i++) series.set(today - i, i % 2 === 0 ? 1410 : 30);
  const chart = buildSeriesChart(bedtime, series, { today, days: 30, dates });
  assert.match(chart.summary.name, /average 00:00/);
  // one axis spanning the hour round midnight, not the whole day
  assert.ok(chart.yDomain[1] - chart.yDomain[0] <= 4 * 60, `domain ${chart.yDomain}`);
  const drawn = chart.days.filter((d) => d.value !== null).map((d) => d.value!);
  assert.equal(Math.max(...drawn) - Math.min(...drawn), 60);
});
