import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";
import { day, testColumn } from "./_test_record.ts";
import {
  aggregate,
  aggregateBuckets,
  assertAggAllowed,
  bucketRanges,
  defaultAgg,
  summaryStats,
} from "./aggregates.ts";

const steps = testColumn("steps", {
  type: "integer",
  daily_agg: "sum",
  goal: { op: "at_least", value: 8000, per: "day", times: null },
});
const workout = testColumn("workout", { type: "boolean", daily_agg: "any" });
const mood = testColumn("mood", { type: "scale", scale_min: 1, scale_max: 5 });

Deno.test("aggregate() buckets are ISO weeks from Monday and calendar months, clipped to the range", () => {
  const weeks = bucketRanges({ start: day("2026-03-04"), end: day("2026-03-18") }, "week");
  assert.deepEqual(weeks.map((w) => [w.start, w.end]), [
    [day("2026-03-04"), day("2026-03-08")],
    [day("2026-03-09"), day("2026-03-15")],
    [day("2026-03-16"), day("2026-03-18")],
  ]);
  const months = bucketRanges({ start: day("2026-01-20"), end: day("2026-03-02") }, "month");
  assert.deepEqual(months.map((m) => [m.start, m.end]), [
    [day("2026-01-20"), day("2026-01-31")],
    [day("2026-02-01"), day("2026-02-28")],
    [day("2026-03-01"), day("2026-03-02")],
  ]);
});

Deno.test("aggregate() the default aggregation follows daily_agg; booleans use rate", () => {
  assert.equal(defaultAgg(steps), "sum");
  assert.equal(defaultAgg(mood), "mean");
  assert.equal(defaultAgg(workout), "rate");
  assert.equal(defaultAgg(testColumn("w", { daily_agg: "last" })), "last");
});

const start = day("2026-03-09");
const series = new Map<DayNumber, DayValue>([
  [start, 9000],
  [start + 1, 7000],
  [start + 2, "skip"],
  [start + 4, 12000],
]);
const week = { start, end: start + 6 };

Deno.test("aggregate() ignores skip and missing days and never imputes", () => {
  assert.deepEqual(aggregate({ column: steps, series, range: week, agg: "sum" }), {
    value: 28000,
    nDays: 3,
  });
  assert.deepEqual(aggregate({ column: steps, series, range: week, agg: "mean" }), {
    value: 9333.33,
    nDays: 3,
  });
  assert.deepEqual(aggregate({ column: steps, series, range: week, agg: "median" }), {
    value: 9000,
    nDays: 3,
  });
  assert.deepEqual(aggregate({ column: steps, series, range: week, agg: "min" }).value, 7000);
  assert.deepEqual(aggregate({ column: steps, series, range: week, agg: "max" }).value, 12000);
  assert.deepEqual(aggregate({ column: steps, series, range: week, agg: "count" }).value, 3);
  assert.deepEqual(aggregate({ column: steps, series, range: week, agg: "rate" }).value, 0.667);
  assert.deepEqual(aggregate({ column: steps, series: new Map(), range: week, agg: "mean" }), {
    value: null,
    nDays: 0,
  });
});

Deno.test("aggregate() boolean rate is the share of logged days that are true", () => {
  const done = new Map<DayNumber, DayValue>([[start, true], [start + 1, false], [start + 3, true], [
    start + 4,
    "skip",
  ]]);
  assert.equal(aggregate({ column: workout, series: done, range: week, agg: "rate" }).value, 0.667);
  assert.equal(aggregate({ column: workout, series: done, range: week, agg: "sum" }).value, 2);
});

Deno.test("aggregate() rate needs a boolean column or a goal", () => {
  assert.throws(
    () => assertAggAllowed(mood, "rate"),
    (e: unknown) => e instanceof AppError && e.code === "invalid_request",
  );
  assertAggAllowed(steps, "rate");
});

Deno.test("aggregate() bucket coverage is the share of the bucket's days with a value; partial weeks are marked", () => {
  const rows = aggregateBuckets({
    column: steps,
    series,
    range: { start, end: start + 9 },
    bucket: "week",
    agg: "sum",
  });
  const same = { days_in_bucket: 7, partial: true };
  assert.deepEqual(rows, [
    // 3 logged + 1 skip of 7 days: a sum over 4 of the week's days, marked, with its daily mean
    {
      start: "2026-03-09",
      end: "2026-03-15",
      value: 28000,
      n_days: 3,
      coverage: 0.429,
      ...same,
      days_skipped: 1,
      daily_mean: 9333.33,
    },
    // the range ends on Wednesday: an unfinished week is partial too
    {
      start: "2026-03-16",
      end: "2026-03-18",
      value: null,
      n_days: 0,
      coverage: 0,
      ...same,
      days_skipped: 0,
      daily_mean: null,
    },
  ]);
  // a week whose every day is logged or skipped is full
  const full = new Map<DayNumber, DayValue>(
    Array.from({ length: 7 }, (_, i) => [start + i, i === 3 ? "skip" : 1000] as const),
  );
  const [row] = aggregateBuckets({
    column: steps,
    series: full,
    range: week,
    bucket: "week",
    agg: "sum",
  });
  assert.deepEqual([row.partial, row.value, row.daily_mean], [false, 6000, 1000]);
});

Deno.test("summaryStats() computes type-7 percentiles and dates ties to the most recent day", () => {
  const values = new Map<DayNumber, DayValue>([
    [start, 3],
    [start + 1, 5],
    [start + 2, 1],
    [start + 3, 5],
    [start + 4, "skip"],
    [start + 5, 4],
  ]);
  const s = summaryStats(mood, values, week);
  assert.equal(s.n, 5);
  assert.equal(s.mean, 3.6);
  assert.equal(s.median, 4);
  assert.equal(s.sd, 1.67);
  assert.deepEqual(s.max, { value: 5, date: "2026-03-12" });
  assert.deepEqual(s.min, { value: 1, date: "2026-03-11" });
  assert.equal(s.p10, 1.8);
  assert.equal(s.p90, 5);
  assert.equal(s.sum, null);
  assert.deepEqual(s.distribution, { "1": 1, "2": 0, "3": 1, "4": 1, "5": 2 });
});

Deno.test("summaryStats() gives booleans a true rate and sums additive columns", () => {
  const done = new Map<DayNumber, DayValue>([[start, true], [start + 1, false], [start + 2, true], [
    start + 3,
    true,
  ]]);
  const b = summaryStats(workout, done, week);
  assert.equal(b.true_rate, 0.75);
  assert.equal(b.mean, null);
  assert.equal(summaryStats(steps, series, week).sum, 28000);
  assert.equal(summaryStats(steps, new Map(), week).n, 0);
});
