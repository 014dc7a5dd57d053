/**
 * Time of day is circular (issue #20 item 9): bedtimes either side of midnight average near
 * midnight, spread by minutes not hours, and trend, compare and weekday figures treat 00:30 as
 * an hour after 23:30. Expected figures are recomputed here independently (complex-number mean
 * direction, hand-unwrapped least squares), never read from the module under test.
 */

import assert from "node:assert/strict";
import type { ToolDefinition } from "../tools/define_tool.ts";
import { comparePeriods } from "../tools/compare_periods.ts";
import { getAggregates } from "../tools/get_aggregates.ts";
import { getOverview } from "../tools/get_overview.ts";
import { getPersonalBests } from "../tools/get_personal_bests.ts";
import { getSummaryStats } from "../tools/get_summary_stats.ts";
import { getTrend } from "../tools/get_trend.ts";
import { getWeekdayPattern } from "../tools/get_weekday_pattern.ts";
import type { DayValue, MemberRecord } from "../record/types.ts";
import { assertValidResult, day, seededRandom, testColumn, testRecord } from "./_test_record.ts";
import { circularMean, circularSd } from "./circular.ts";

// deno-lint-ignore no-explicit-any
function call(tool: ToolDefinition<any, any>, record: MemberRecord, args: object): any {
  const result = tool.run(record, tool.input.parse(args));
  assertValidResult(tool as unknown as ToolDefinition, result);
  return result;
}

const bedtime = testColumn("bedtime", {
  label: "Bedtime",
  type: "time_of_day",
  direction: "neutral",
  daily_agg: "last",
});

/** Independent circular mean: the argument of Σ e^{iθ}, θ = 2π·minutes/1440, in minutes. */
function refMean(xs: number[]): number {
  const re = xs.reduce((s, x) => s + Math.cos((2 * Math.PI * x) / 1440), 0);
  const im = xs.reduce((s, x) => s + Math.sin((2 * Math.PI * x) / 1440), 0);
  const m = (Math.atan2(im, re) * 1440) / (2 * Math.PI);
  return m < 0 ? m + 1440 : m;
}

/** Minutes from a → b the short way round. */
const gap = (b: number, a: number) => ((((b - a) % 1440) + 2160) % 1440) - 720;

Deno.test("circularMean() of 23:30 and 00:30 is 00:00, and circularSd() is minutes, not hours", () => {
  assert.ok(Math.abs(gap(circularMean([1410, 30]), 0)) < 1e-9);
  // R̄ = cos(30 min as an angle); √(−2 ln R̄)·1440/2π ≈ 30 minutes
  const r = Math.cos((2 * Math.PI * 30) / 1440);
  const expected = (Math.sqrt(-2 * Math.log(r)) * 1440) / (2 * Math.PI);
  assert.ok(Math.abs(circularSd([1410, 30]) - expected) < 1e-9);
  assert.ok(expected > 29.9 && expected < 30.1);
});

/** 56 bedtimes around 23:50 (± 40 min), half of them after midnight; the last 28 days 30 min later. */
function bedtimes(): { record: MemberRecord; values: Map<number, DayValue>; xs: number[] } {
  const rand = seededRandom(20);
  const today = day("2026-03-18");
  const values = new Map<number, DayValue>(), xs: number[] = [];
  for (let i = 0; i < 56; i++) {
    const shift = i >= 28 ? 30 : 0;
    const x = Math.round((1430 + shift + (rand() - 0.5) * 80 + 1440) % 1440);
    values.set(today - 55 + i, x);
    xs.push(x);
  }
  const record = testRecord({ columns: [bedtime], values: { bedtime: values } });
  return { record, values, xs };
}

Deno.test("get_summary_stats() reports a circular mean, median and SD for a time of day", () => {
  const { record, xs } = bedtimes();
  const s = call(getSummaryStats, record, { metric: "bedtime", days: 56 });
  const m = refMean(xs);
  assert.ok(Math.abs(gap(s.mean, m)) <= 0.01, `mean ${s.mean} vs ${m}`);
  assert.ok(s.mean > 1380 || s.mean < 60, `a bedtime near midnight, not ${s.mean}`);
  // hand-unwrapped around the reference mean, the spread is tens of minutes, not ~11 hours
  const unwrapped = xs.map((x) => m + gap(x, m)).sort((a, b) => a - b);
  const med = (unwrapped[27] + unwrapped[28]) / 2;
  assert.ok(Math.abs(gap(s.median, med)) <= 0.01, `median ${s.median} vs ${med}`);
  assert.ok(s.sd > 10 && s.sd < 60, `sd ${s.sd}`);
  assert.ok(s.min.value >= 1320 || s.min.value < 120);
  assert.match(s.definition, /circular/);
});

Deno.test("get_trend() and compare_periods() see 30 minutes later, not hours earlier", () => {
  const { record, xs } = bedtimes();
  const t = call(getTrend, record, { metric: "bedtime", days: 28 });
  const before = refMean(xs.slice(0, 28)), after = refMean(xs.slice(28));
  assert.ok(Math.abs(gap(t.current_mean, after)) <= 0.01);
  assert.ok(Math.abs(gap(t.previous_mean, before)) <= 0.01);
  assert.ok(Math.abs(t.delta - gap(after, before)) <= 0.02, `delta ${t.delta}`);
  assert.ok(t.delta > 15 && t.delta < 45, `delta ${t.delta}`);
  assert.ok(t.slope_per_week > 0, `slope ${t.slope_per_week}`);
  assert.equal(t.delta_pct, null);
  assert.equal(t.verdict, "increasing");
  const c = call(comparePeriods, record, {
    metric: "bedtime",
    a_start: "2026-02-19",
    a_end: "2026-03-18",
  });
  assert.ok(Math.abs(c.delta - gap(after, before)) <= 0.02, `delta ${c.delta}`);
  assert.equal(c.verdict, "a_higher");
});

Deno.test("get_aggregates(), get_weekday_pattern() and get_overview() average times round the clock", () => {
  const { record, xs } = bedtimes();
  const a = call(getAggregates, record, {
    metric: "bedtime",
    agg: "mean",
    bucket: "month",
    start: "2026-03-01",
    end: "2026-03-18",
  });
  const march = xs.slice(56 - 18);
  assert.ok(Math.abs(gap(a.buckets[0].value, refMean(march))) <= 0.01);
  const w = call(getWeekdayPattern, record, { metric: "bedtime", days: 56 });
  assert.ok(Math.abs(gap(w.overall_mean, refMean(xs))) <= 0.01);
  for (const g of w.by_weekday) assert.ok(g.mean > 1320 || g.mean < 120, `${g.weekday} ${g.mean}`);
  const o = call(getOverview, record, { period: "week", date: "2026-03-18" });
  const row = o.rows.find((r: { metric: string }) => r.metric === "bedtime");
  assert.ok(row.mean_per_day > 1320 || row.mean_per_day < 120, `mean ${row.mean_per_day}`);
  assert.ok(Math.abs(row.delta_vs_baseline) < 90, `delta ${row.delta_vs_baseline}`);
});

Deno.test("get_personal_bests() ranks an earlier bedtime as earlier, across midnight", () => {
  const earlier = { ...bedtime, direction: "lower_better" as const };
  const today = day("2026-03-18");
  const values = new Map<number, DayValue>();
  for (let i = 0; i < 20; i++) values.set(today - 19 + i, 1380 + (i % 3) * 10); // 23:00–23:20
  values.set(today - 10, 40); // 00:40: the latest night
  values.set(today - 5, 1330); // 22:10: the earliest
  const record = testRecord({ columns: [earlier], values: { bedtime: values } });
  const r = call(getPersonalBests, record, { metric: "bedtime", top: 1 });
  assert.deepEqual(r.best_days[0], { date: "2026-03-13", value: 1330 });
  assert.deepEqual(r.worst_days[0], { date: "2026-03-08", value: 40 });
  assert.ok(r.best_7d_mean.value > 1320 && r.best_7d_mean.value < 1440);
});
