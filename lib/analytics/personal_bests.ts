/**
 * Personal records (`get_personal_bests`): best and worst days, best 7-day mean, best complete
 * week and month, and the longest streak. "Best" follows the column's `direction`
 * (lower_better → lowest); ties go to the most recent date.
 */

import {
  type DayNumber,
  formatDay,
  isoWeekStart,
  monthStart,
  nextMonthStart,
} from "../foundation/dates.ts";
import type { Column } from "../record/types.ts";
import { type ColumnSeries, type DayRange, numericValue, round } from "./common.ts";
import { circularMean, clockDifference, clockLevel, isClock, levelMean } from "./circular.ts";
import { computeStreak } from "./streak.ts";

/** A best 7-day window needs at least this many values in its 7 days (domain-anchors §3.3). */
export const MIN_VALUES_7D = 5;

/** One dated value. */
export interface DayRecord {
  date: string;
  value: number;
}

/** Everything `get_personal_bests` reports besides the envelope. */
export interface PersonalBests {
  best_is: "highest" | "lowest";
  n: number;
  best_days: DayRecord[];
  worst_days: DayRecord[];
  best_7d_mean: { start: string; end: string; value: number; n: number } | null;
  best_week: { start: string; end: string; value: number; n_days: number } | null;
  best_month: { month: string; value: number; n_days: number } | null;
  longest_streak: {
    unit: "day" | "week" | "measurement";
    length: number;
    start: string;
    end: string;
  } | null;
  recent_record: boolean;
  recent_records: ("best_day" | "best_7d_mean" | "best_week" | "best_month" | "longest_streak")[];
}

/** Whether lower values are better for this column. */
function lowerIsBetter(column: Column): boolean {
  return column.direction === "lower_better";
}

/** The aggregate of a complete period by the column's `daily_agg` (booleans: days done). */
function periodValue(column: Column, xs: number[], onClock: OnClock): number {
  if (column.type === "boolean" || column.daily_agg === "any" || column.daily_agg === "sum") {
    return xs.reduce((a, b) => a + b, 0);
  }
  if (column.daily_agg === "last") return onClock(xs[xs.length - 1]);
  return onClock(levelMean(column, xs));
}

/**
 * Where a value sits for ranking: a time of day unwrapped around the window's circular mean
 * (circular.ts), so with "earlier is better" 00:10 ranks after 23:50, not before 22:00; other
 * columns as they are.
 */
type OnClock = (x: number) => number;

function onClockOf(column: Column, xs: number[]): OnClock {
  const center = isClock(column) ? circularMean(xs) : NaN;
  return Number.isNaN(center) ? (x) => x : (x) => center + clockDifference(x, center);
}

/** What `personalBests` reads. */
export interface PersonalBestsInput extends ColumnSeries {
  /** The window, ending today. */
  range: DayRange;
  today: DayNumber;
  /** How many best and worst days to list. */
  top: number;
}

/** A value on a day. */
interface DayPoint {
  day: DayNumber;
  value: number;
}

/** A complete week or month and its value. */
interface Period {
  start: DayNumber;
  end: DayNumber;
  value: number;
  n: number;
  /** The end of the first period that reached the best value (a later tie is not a new record). */
  firstEnd?: DayNumber;
}

/** `better(a, b)`: a is at least as good as b, so a later equal value replaces an earlier one. */
type Better = (a: number, b: number) => boolean;

/**
 * Equal to within rounding: a best that only equals an earlier value is a tie, not a new record
 * (issue #20 item 11: 203 of 268 "personal records" the coach stated tied an earlier value).
 */
function ties(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * Records of `column` over `range` (ending today). Weeks and months count only when complete
 * (ended before today) and at least half their days have a value; booleans have no best day
 * (every done day ties), their week and month values are days done.
 */
export function personalBests(input: PersonalBestsInput): PersonalBests {
  const { column, series, range, today, top } = input;
  const lower = lowerIsBetter(column);
  const better: Better = (a, b) => (lower ? a <= b : a >= b);
  const days: DayPoint[] = [];
  for (let day = range.start; day <= range.end; day++) {
    const x = numericValue(series.get(day));
    if (x !== null) days.push({ day, value: x });
  }
  const onClock = onClockOf(column, days.map((d) => d.value));
  const at = (d: DayPoint) => onClock(d.value);
  const isBoolean = column.type === "boolean";
  const byBest = days.slice().sort((a, b) =>
    at(a) === at(b) ? b.day - a.day : lower ? at(a) - at(b) : at(b) - at(a)
  );
  const byWorst = days.slice().sort((a, b) =>
    at(a) === at(b) ? b.day - a.day : lower ? at(b) - at(a) : at(a) - at(b)
  );
  const dated = (d: DayPoint) => ({ date: formatDay(d.day), value: d.value });
  const best7 = best7DayMean({ column, series, range, better, onClock });
  const week = bestPeriod("week", input, { better, onClock });
  const month = bestPeriod("month", input, { better, onClock });
  const streak = computeStreak(column, series, today);
  const longest = streak.longest;

  const recentFrom = today - 6;
  const recent: PersonalBests["recent_records"] = [];
  // A record beats every earlier value: it is recent when the best was first reached in the last
  // 7 days, not when a recent day only tied an older best.
  const firstBest = byBest.filter((d) => ties(at(d), at(byBest[0]))).at(-1);
  if (!isBoolean && firstBest && firstBest.day >= recentFrom) recent.push("best_day");
  if (best7 && best7.firstEnd >= recentFrom) recent.push("best_7d_mean");
  if (week && week.firstEnd! >= recentFrom) recent.push("best_week");
  if (month && month.firstEnd! >= recentFrom) recent.push("best_month");
  if (longest && streak.isRecord && longest.end >= recentFrom) recent.push("longest_streak");

  return {
    best_is: lower ? "lowest" : "highest",
    n: days.length,
    best_days: isBoolean ? [] : byBest.slice(0, top).map(dated),
    worst_days: isBoolean ? [] : byWorst.slice(0, top).map(dated),
    best_7d_mean: best7 && best7.mean,
    best_week: week
      ? {
        start: formatDay(week.start),
        end: formatDay(week.end),
        value: round(clockLevel(column, week.value), 3),
        n_days: week.n,
      }
      : null,
    best_month: month
      ? {
        month: formatDay(month.start).slice(0, 7),
        value: round(clockLevel(column, month.value), 3),
        n_days: month.n,
      }
      : null,
    longest_streak: longest
      ? {
        unit: streak.unit,
        length: longest.length,
        start: formatDay(longest.start),
        end: formatDay(longest.end),
      }
      : null,
    recent_record: recent.length > 0,
    recent_records: recent,
  };
}

/** The best rolling 7-day mean with at least MIN_VALUES_7D values, and the day it ends. */
function best7DayMean(
  { column, series, range, better, onClock }: Best7Options,
):
  | { mean: NonNullable<PersonalBests["best_7d_mean"]>; endDay: DayNumber; firstEnd: DayNumber }
  | null {
  let best: NonNullable<PersonalBests["best_7d_mean"]> | null = null;
  let bestEnd = 0, firstEnd = 0;
  for (let end = range.start + 6; end <= range.end; end++) {
    const xs: number[] = [];
    for (let day = end - 6; day <= end; day++) {
      const x = numericValue(series.get(day));
      if (x !== null) xs.push(x);
    }
    const n = xs.length;
    if (n < MIN_VALUES_7D) continue;
    const value = onClock(levelMean(column, xs));
    if (!best || better(value, best.value)) {
      if (!best || !ties(value, best.value)) firstEnd = end;
      best = { start: formatDay(end - 6), end: formatDay(end), value, n };
      bestEnd = end;
    }
  }
  if (!best) return null;
  best.value = round(clockLevel(column, best.value), 3);
  return { mean: best, endDay: bestEnd, firstEnd };
}

/** What the best rolling 7-day mean reads. */
interface Best7Options extends ColumnSeries {
  range: DayRange;
  better: Better;
  onClock: OnClock;
}

/** The best complete week or month with at least half its days recorded. */
function bestPeriod(
  kind: "week" | "month",
  { column, series, range, today }: PersonalBestsInput,
  { better, onClock }: { better: Better; onClock: OnClock },
): Period | null {
  const out: Period[] = [];
  let start = kind === "week" ? isoWeekStart(range.start) : monthStart(range.start);
  if (start < range.start) start = kind === "week" ? start + 7 : nextMonthStart(start);
  while (true) {
    const end = kind === "week" ? start + 6 : nextMonthStart(start) - 1;
    if (end >= today || end > range.end) break;
    const xs: number[] = [];
    for (let day = start; day <= end; day++) {
      const x = numericValue(series.get(day));
      if (x !== null) xs.push(x);
    }
    if (xs.length >= Math.ceil((end - start + 1) / 2)) {
      out.push({ start, end, value: periodValue(column, xs, onClock), n: xs.length });
    }
    start = end + 1;
  }
  let best: Period | null = null;
  for (const p of out) {
    if (best && !better(p.value, best.value)) continue;
    const firstEnd: DayNumber | undefined = best && ties(p.value, best.value)
      ? best.firstEnd
      : p.end;
    best = { ...p, firstEnd };
  }
  return best;
}
