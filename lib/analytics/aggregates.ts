/**
 * Bucketed aggregates (`get_aggregates`) and descriptive statistics (`get_summary_stats`) of one
 * column. Booleans are read as 1/0; skip and missing days contribute nothing (never imputed).
 */

import { AppError } from "../foundation/errors.ts";
import {
  type DayNumber,
  formatDay,
  isoWeekStart,
  monthStart,
  nextMonthStart,
} from "../foundation/dates.ts";
import type { Column, DayValue } from "../record/types.ts";
import { type ColumnSeries, type DayRange, dayState, numericValue, round } from "./common.ts";
import { mean, quantileSorted, sd, sortedCopy } from "./stats.ts";
import { circularSd, clockLevel, isClock, levelMean, unwrapClock } from "./circular.ts";

/** Aggregations a bucket can use. `last` only arises as the default of a `daily_agg: last` column. */
export type Agg = "sum" | "mean" | "median" | "min" | "max" | "count" | "rate" | "last";

/** Bucket sizes. */
export type Bucket = "day" | "week" | "month";

/** The column's own aggregation: its `daily_agg`, except that booleans (and `any`) use `rate`. */
export function defaultAgg(column: Column): Agg {
  if (column.type === "boolean") return "rate";
  switch (column.daily_agg) {
    case "sum":
      return "sum";
    case "mean":
      return "mean";
    case "last":
      return "last";
    case "any":
      return "count";
  }
}

/** Splits `range` into calendar buckets (ISO weeks from Monday, calendar months), clipped to it. */
export function bucketRanges(range: DayRange, bucket: Bucket): DayRange[] {
  const out: DayRange[] = [];
  let start = range.start;
  while (start <= range.end) {
    const next = bucket === "day"
      ? start + 1
      : bucket === "week"
      ? isoWeekStart(start) + 7
      : nextMonthStart(monthStart(start));
    const end = Math.min(next - 1, range.end);
    out.push({ start, end });
    start = end + 1;
  }
  return out;
}

/** Rejects an aggregation that has no meaning for the column. */
export function assertAggAllowed(column: Column, agg: Agg): void {
  if (agg === "rate" && column.type !== "boolean" && !column.goal) {
    throw new AppError(
      "invalid_request",
      `agg "rate" needs a boolean column or a goal; "${column.key}" has neither. Use mean, median or count.`,
    );
  }
}

/** What one aggregation reads. */
export interface AggregateOptions extends ColumnSeries {
  range: DayRange;
  agg: Agg;
}

/**
 * Aggregates the values of `series` in `range`. `count` is the number of logged days; `rate` is the
 * share of logged days that are true (booleans) or meet the day-level goal. `null` without values.
 */
export function aggregate(
  { column, series, range, agg }: AggregateOptions,
): { value: number | null; nDays: number } {
  const xs: number[] = [];
  let hits = 0;
  for (let day = range.start; day <= range.end; day++) {
    const raw = series.get(day);
    const x = numericValue(raw);
    if (x === null) continue;
    xs.push(x);
    if (dayState(column, raw) === "qualifies") hits++;
  }
  const n = xs.length;
  if (n === 0) return { value: agg === "count" ? 0 : null, nDays: 0 };
  const value = aggregateValues(column, isClock(column) ? unwrapClock(xs) : xs, { agg, hits });
  return { value: round(value, agg === "rate" ? 3 : 2), nDays: n };
}

/** One aggregation of logged values; a time of day's levels are circular (circular.ts). */
function aggregateValues(
  column: Column,
  xs: ArrayLike<number>,
  { agg, hits }: { agg: Agg; hits: number },
): number {
  const n = xs.length;
  let value: number;
  switch (agg) {
    case "sum":
      value = 0;
      for (let i = 0; i < n; i++) value += xs[i];
      break;
    case "mean":
      value = levelMean(column, xs);
      break;
    case "median":
      value = quantileSorted(sortedCopy(xs), 0.5);
      break;
    case "min":
      value = Math.min(...Array.from(xs));
      break;
    case "max":
      value = Math.max(...Array.from(xs));
      break;
    case "count":
      value = n;
      break;
    case "rate":
      value = hits / n;
      break;
    case "last":
      value = xs[n - 1];
      break;
  }
  // a sum, count or rate of times is not a time of day; every other aggregate is one
  return agg === "sum" || agg === "count" || agg === "rate" ? value : clockLevel(column, value);
}

/** One bucket of `get_aggregates`. */
export interface BucketRow {
  start: string;
  end: string;
  value: number | null;
  n_days: number;
  coverage: number;
  /** Calendar days of the whole bucket (7 for a week), even when the range clips it. */
  days_in_bucket: number;
  days_skipped: number;
  /**
   * Some day of the calendar bucket has neither a value nor a skip, or lies outside the range
   * (an unfinished current week): a sum over it is not comparable with a full bucket's.
   */
  partial: boolean;
  /** For `sum`: the sum per logged day, comparable across full and partial buckets. */
  daily_mean: number | null;
}

/** Calendar length of the bucket that starts at or contains `day`. */
function fullLength(day: DayNumber, bucket: Bucket): number {
  if (bucket === "day") return 1;
  if (bucket === "week") return 7;
  const start = monthStart(day);
  return nextMonthStart(start) - start;
}

/** What bucketed aggregation reads. */
export interface AggregateBucketsOptions extends ColumnSeries {
  range: DayRange;
  bucket: Bucket;
  agg: Agg;
}

/**
 * The buckets of `range` with their aggregate, days with a value, coverage (share of days) and
 * whether the bucket is partly logged (issue #12: a weekly sum over 4 logged days must not sit
 * unmarked beside full weeks).
 */
export function aggregateBuckets(
  { column, series, range, bucket, agg }: AggregateBucketsOptions,
): BucketRow[] {
  return bucketRanges(range, bucket).map((r) => {
    const { value, nDays } = aggregate({ column, series, range: r, agg });
    let skipped = 0;
    for (let day = r.start; day <= r.end; day++) if (series.get(day) === "skip") skipped++;
    const full = fullLength(r.start, bucket);
    return {
      start: formatDay(r.start),
      end: formatDay(r.end),
      value,
      n_days: nDays,
      coverage: round(nDays / (r.end - r.start + 1), 3),
      days_in_bucket: full,
      days_skipped: skipped,
      partial: nDays + skipped < full,
      daily_mean: agg === "sum" && value !== null && nDays > 0 ? round(value / nDays, 2) : null,
    };
  });
}

/** A value with the date it was logged. */
export interface DatedValue {
  value: number;
  date: string;
}

/** Descriptive statistics of one column over a range (`get_summary_stats`). */
export interface SummaryStats {
  n: number;
  days_in_range: number;
  mean: number | null;
  median: number | null;
  sd: number | null;
  min: DatedValue | null;
  max: DatedValue | null;
  p10: number | null;
  p90: number | null;
  sum: number | null;
  true_rate: number | null;
  distribution: Record<string, number> | null;
}

/**
 * Mean, median, sample SD, min/max (ties → most recent date), type-7 p10/p90, sum (additive
 * columns only), true rate (booleans) and per-level counts (scales) over `range`.
 */
export function summaryStats(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  range: DayRange,
): SummaryStats {
  const logged: number[] = [], days: DayNumber[] = [];
  for (let day = range.start; day <= range.end; day++) {
    const x = numericValue(series.get(day));
    if (x === null) continue;
    logged.push(x);
    days.push(day);
  }
  // times of day: min/max/quantiles on the values unwrapped around their circular mean (the
  // earliest and latest relative to the usual time), mean and SD circular (circular.ts)
  const clock = isClock(column);
  const xs = clock ? Array.from(unwrapClock(logged)) : logged;
  let min: { value: number; day: DayNumber } | null = null;
  let max: { value: number; day: DayNumber } | null = null;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (!min || x <= min.value) min = { value: x, day: days[i] };
    if (!max || x >= max.value) max = { value: x, day: days[i] };
  }
  const n = xs.length;
  const daysInRange = range.end - range.start + 1;
  const isBoolean = column.type === "boolean";
  const empty: SummaryStats = {
    n,
    days_in_range: daysInRange,
    mean: null,
    median: null,
    sd: null,
    min: null,
    max: null,
    p10: null,
    p90: null,
    sum: null,
    true_rate: null,
    distribution: null,
  };
  if (n === 0) return empty;
  if (isBoolean) return { ...empty, true_rate: round(mean(xs), 3) };

  const sorted = sortedCopy(xs);
  let distribution: Record<string, number> | null = null;
  if (column.type === "scale" && column.scale_min !== null && column.scale_max !== null) {
    distribution = {};
    for (let level = column.scale_min; level <= column.scale_max; level++) {
      distribution[String(level)] = 0;
    }
    for (const x of xs) distribution[String(x)] = (distribution[String(x)] ?? 0) + 1;
  }
  const level = (x: number) => round(clockLevel(column, x));
  const spread = clock ? circularSd(xs) : sd(xs);
  return {
    ...empty,
    mean: level(levelMean(column, xs)),
    median: level(quantileSorted(sorted, 0.5)),
    sd: n >= 2 ? round(spread) : null,
    min: { value: clockLevel(column, min!.value), date: formatDay(min!.day) },
    max: { value: clockLevel(column, max!.value), date: formatDay(max!.day) },
    p10: level(quantileSorted(sorted, 0.1)),
    p90: level(quantileSorted(sorted, 0.9)),
    sum: column.daily_agg === "sum" ? round(xs.reduce((a, b) => a + b, 0)) : null,
    distribution,
  };
}
