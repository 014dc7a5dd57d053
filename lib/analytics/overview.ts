/**
 * The "start here" snapshot (`get_overview`): every column on one day or in one ISO week, with
 * goal status, current streak and the change against the 28 days before.
 */

import { type DayNumber, isoWeekStart } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { type Agg, aggregate, defaultAgg } from "./aggregates.ts";
import { type DayRange, dayState, numericValue, round, seriesOf } from "./common.ts";
import { clockDifference, clockLevel, isClock, levelMean } from "./circular.ts";
import { dailyAttainment, weeklyProgress } from "./goal_progress.ts";
import { computeStreak } from "./streak.ts";

/** A baseline needs at least this many values in its 28 days. */
export const MIN_BASELINE_VALUES = 7;

/** One column in the overview. */
export interface OverviewRow {
  metric: string;
  unit: string | null;
  state: "value" | "skip" | "missing" | "pending";
  value: number | boolean | null;
  agg: Agg | null;
  n_days: number;
  /** A week with some day neither logged nor skipped (or still to come): compare mean_per_day. */
  partial: boolean;
  mean_per_day: number | null;
  goal_met: boolean | null;
  progress: { done: number; target: number } | null;
  streak_current: number;
  baseline_28d: number | null;
  delta_vs_baseline: number | null;
}

/** The period of the overview: the day itself, or its ISO week up to today. */
export function overviewRange(period: "day" | "week", date: DayNumber, today: DayNumber): DayRange {
  if (period === "day") return { start: date, end: date };
  const monday = isoWeekStart(date);
  return { start: monday, end: Math.min(monday + 6, today) };
}

function meanOf(
  column: Column,
  record: MemberRecord,
  range: DayRange,
): { mean: number | null; n: number } {
  const series = seriesOf(record, column.key);
  const xs: number[] = [];
  for (let day = range.start; day <= range.end; day++) {
    const x = numericValue(series.get(day));
    if (x !== null) xs.push(x);
  }
  // a time of day's mean is circular, as a clock time (circular.ts)
  return { mean: xs.length > 0 ? clockLevel(column, levelMean(column, xs)) : null, n: xs.length };
}

/** period − baseline; for times of day the shorter way round the clock. */
function deltaOf(column: Column, period: number, baseline: number): number {
  return isClock(column) ? clockDifference(period, baseline) : period - baseline;
}

/** One column's overview row inputs. */
export interface OverviewRowOptions {
  record: MemberRecord;
  column: Column;
  period: "day" | "week";
  range: DayRange;
}

/** One overview row of `column` for `range` (`period` says whether it is a day or a week). */
export function overviewRow({ record, column, period, range }: OverviewRowOptions): OverviewRow {
  const series = seriesOf(record, column.key);
  const today = record.today;
  const periodMean = meanOf(column, record, range);
  const baseline = meanOf(column, record, { start: range.start - 28, end: range.start - 1 });
  const baseline28 = baseline.n >= MIN_BASELINE_VALUES ? baseline.mean : null;

  let state: OverviewRow["state"];
  let value: OverviewRow["value"];
  let agg: Agg | null = null;
  let partial = false;
  if (period === "day") {
    const raw = series.get(range.start);
    value = raw === undefined || raw === "skip" ? null : raw;
    state = raw === "skip"
      ? "skip"
      : raw !== undefined
      ? "value"
      : range.start === today
      ? "pending"
      : "missing";
  } else {
    agg = column.type === "boolean" ? "sum" : defaultAgg(column);
    value = aggregate({ column, series, range, agg }).value;
    let open = 0, skipped = 0;
    for (let day = range.start; day <= range.end; day++) {
      if (day === today && !series.has(day)) continue;
      open++;
      if (series.get(day) === "skip") skipped++;
    }
    partial = periodMean.n + skipped < 7;
    state = periodMean.n > 0
      ? "value"
      : open === 0
      ? "pending"
      : skipped === open
      ? "skip"
      : "missing";
  }

  const goal = column.goal;
  let goalMet: boolean | null = null;
  let progress: OverviewRow["progress"] = null;
  if (goal?.per === "week") {
    const w = weeklyProgress({ column, series, date: range.end, today });
    progress = { done: w.done, target: w.target };
  } else if (goal && period === "day") {
    const s = dayState(column, series.get(range.start));
    goalMet = s === "qualifies" ? true : s === "below_goal" ? false : null;
  } else if (goal) {
    const { eligible, met } = dailyAttainment({ column, series, range, today });
    progress = { done: met, target: eligible };
  }

  return {
    metric: column.key,
    unit: column.unit,
    state,
    value,
    agg,
    n_days: periodMean.n,
    partial,
    mean_per_day: periodMean.mean === null ? null : round(periodMean.mean, 2),
    goal_met: goalMet,
    progress,
    streak_current: computeStreak(column, series, range.end).current?.length ?? 0,
    baseline_28d: baseline28 === null ? null : round(baseline28, 2),
    delta_vs_baseline: periodMean.mean === null || baseline28 === null
      ? null
      : round(deltaOf(column, periodMean.mean, baseline28), 2),
  };
}
