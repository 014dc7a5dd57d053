/**
 * Goal attainment (`get_goal_progress`) for a day, ISO week or calendar month, with the weekly
 * picture for `per: "week"` goals and 30-day rates. The same day qualification as streaks applies,
 * including "today only helps": today counts once it qualifies and is never held against the goal.
 */

import {
  type DayNumber,
  formatDay,
  isoWeekStart,
  monthStart,
  nextMonthStart,
} from "../foundation/dates.ts";
import type { Goal } from "../record/types.ts";
import { columnExtent } from "./columns.ts";
import { type ColumnSeries, type DayRange, dayState, round } from "./common.ts";
import { proratedWeeklyTarget } from "./streak.ts";

/** Period sizes. */
export type GoalPeriod = "day" | "week" | "month";

/** The calendar period of `kind` containing `date`. */
export function periodRange(kind: GoalPeriod, date: DayNumber): DayRange {
  if (kind === "day") return { start: date, end: date };
  if (kind === "week") return { start: isoWeekStart(date), end: isoWeekStart(date) + 6 };
  return { start: monthStart(date), end: nextMonthStart(date) - 1 };
}

/** Progress inside one ISO week of a weekly goal. */
export interface WeeklyProgress {
  done: number;
  target: number;
  remaining_days: number;
  on_track: boolean;
}

/** One goal's progress. */
export interface GoalProgressRow {
  metric: string;
  unit: string | null;
  goal: Goal;
  period: { start: string; end: string };
  eligible_days: number;
  met_days: number;
  attainment_rate: number | null;
  weekly: WeeklyProgress | null;
  rate_30d: number | null;
  rate_prev_30d: number | null;
}

/** What daily attainment is computed over. */
export interface DailyAttainmentOptions extends ColumnSeries {
  range: DayRange;
  today: DayNumber;
}

/**
 * Eligible and met days in `range` (clipped to the column's first entry and today): skip days are
 * not eligible, nor missing days of a `missing_policy: neutral` column, nor a today that does not
 * qualify yet.
 */
export function dailyAttainment(
  { column, series, range, today }: DailyAttainmentOptions,
): { eligible: number; met: number } {
  const first = columnExtent(series).first;
  let eligible = 0, met = 0;
  if (first === null) return { eligible, met };
  const neutralMissing = column.missing_policy === "neutral";
  for (let day = Math.max(range.start, first); day <= Math.min(range.end, today); day++) {
    const state = dayState(column, series.get(day));
    if (state === "skip" || (state === "missing" && neutralMissing)) continue;
    if (day === today && state !== "qualifies") continue;
    eligible++;
    if (state === "qualifies") met++;
  }
  return { eligible, met };
}

/** What weekly progress is computed over. */
export interface WeeklyProgressOptions extends ColumnSeries {
  date: DayNumber;
  today: DayNumber;
}

/**
 * The ISO week of `date` for a weekly goal: completions so far, the pro-rated target, days left
 * (from today if it is not logged yet, else tomorrow; skips excluded) and whether the member is
 * on pace: done ≥ ⌊target × elapsed / 7⌋ and the target is still reachable (or already met).
 */
export function weeklyProgress(
  { column, series, date, today }: WeeklyProgressOptions,
): WeeklyProgress {
  const monday = isoWeekStart(date);
  let done = 0, skips = 0;
  for (let day = monday; day < monday + 7; day++) {
    const state = dayState(column, series.get(day));
    if (state === "skip") skips++;
    else if (state === "qualifies" && day <= today) done++;
  }
  const target = proratedWeeklyTarget(column.goal?.times ?? 1, skips);
  const firstOpen = series.has(today) ? today + 1 : today;
  let remaining = 0;
  for (let day = Math.max(firstOpen, monday); day < monday + 7; day++) {
    if (series.get(day) !== "skip") remaining++;
  }
  const elapsed = Math.min(7, Math.max(0, firstOpen - monday));
  const onTrack = done >= target ||
    (done + remaining >= target && done >= Math.floor((target * elapsed) / 7));
  return { done, target, remaining_days: remaining, on_track: onTrack };
}

/** What a weekly goal rate is computed over. */
interface WeeklyRateOptions extends ColumnSeries {
  range: DayRange;
  today: DayNumber;
}

/** What an attainment rate is computed over. */
interface RateOptions extends ColumnSeries {
  range: DayRange;
  today: DayNumber;
}

/** Share of complete ISO weeks ending in `range` (before today) that met their pro-rated target. */
function weeklyRate({ column, series, range, today }: WeeklyRateOptions): number | null {
  const first = columnExtent(series).first;
  if (first === null) return null;
  let weeks = 0, met = 0;
  for (let sunday = isoWeekStart(range.start) + 6; sunday <= range.end; sunday += 7) {
    if (sunday < range.start || sunday >= today || sunday - 6 < first) continue;
    const w = weeklyProgress({ column, series, date: sunday, today });
    if (w.target === 0) continue;
    weeks++;
    if (w.done >= w.target) met++;
  }
  return weeks > 0 ? round(met / weeks, 3) : null;
}

function rate({ column, series, range, today }: RateOptions): number | null {
  if (column.goal?.per === "week") return weeklyRate({ column, series, range, today });
  const { eligible, met } = dailyAttainment({ column, series, range, today });
  return eligible > 0 ? round(met / eligible, 3) : null;
}

/** What goal progress is measured over. */
export interface GoalProgressOptions extends ColumnSeries {
  kind: GoalPeriod;
  date: DayNumber;
  today: DayNumber;
}

/** Goal progress of one goal column for the `kind` period containing `date`. */
export function goalProgress(
  { column, series, kind, date, today }: GoalProgressOptions,
): GoalProgressRow {
  const period = periodRange(kind, date);
  const { eligible, met } = dailyAttainment({ column, series, range: period, today });
  const weekly = column.goal?.per === "week"
    ? weeklyProgress({ column, series, date, today })
    : null;
  return {
    metric: column.key,
    unit: column.unit,
    goal: { ...column.goal! },
    period: { start: formatDay(period.start), end: formatDay(period.end) },
    eligible_days: eligible,
    met_days: met,
    attainment_rate: eligible > 0 ? round(met / eligible, 3) : null,
    weekly,
    rate_30d: rate({ column, series, range: { start: date - 29, end: date }, today }),
    rate_prev_30d: rate({ column, series, range: { start: date - 59, end: date - 30 }, today }),
  };
}
