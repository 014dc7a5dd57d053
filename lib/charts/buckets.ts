/**
 * How a long History chart is bucketed (issue #25, Loop Habit Tracker's "week" and "month"
 * buckets): up to 90 days a mark per day, up to about a year a mark per week, beyond that a mark per
 * calendar month. A 365-bar comb of 0.8 px bars on a phone, or a saw-tooth line of 365 points,
 * says less than 53 weekly marks; three years are 36 monthly ones.
 *
 * The weeks start on the member's first day of the week (`weekStartsOn`, JavaScript's convention
 * 0 = Sunday … 6 = Saturday, default Monday); the value of a bucket is computed by the analytics'
 * own `aggregate` (lib/analytics/aggregates.ts), the figure `get_aggregates` returns.
 */

import { type DayNumber, monthStart, nextMonthStart, weekdayOf } from "../foundation/dates.ts";
import type { DayRange } from "../analytics/common.ts";

/** A chart's mark: one day, one week or one calendar month. */
export type ChartBucket = "day" | "week" | "month";

/** The longest window drawn a day per mark, and the longest drawn a week per mark. */
export const DAILY_UP_TO = 90;
export const WEEKLY_UP_TO = 371;

/** The bucket of a window of `days` days. */
export function chartBucket(days: number): ChartBucket {
  return days <= DAILY_UP_TO ? "day" : days <= WEEKLY_UP_TO ? "week" : "month";
}

/** The first day of the week containing `day`, weeks starting on `weekStartsOn` (0 = Sunday). */
export function weekStart(day: DayNumber, weekStartsOn = 1): DayNumber {
  const jsWeekday = (weekdayOf(day) + 1) % 7; // weekdayOf is ISO: 0 = Monday
  return day - ((jsWeekday - weekStartsOn + 7) % 7);
}

/** `range` split into the bucket's calendar periods, oldest first, the first and last clipped. */
export function bucketRangesOf(
  range: DayRange,
  bucket: ChartBucket,
  weekStartsOn = 1,
): DayRange[] {
  const out: DayRange[] = [];
  for (let start = range.start; start <= range.end;) {
    const next = bucket === "day"
      ? start + 1
      : bucket === "week"
      ? weekStart(start, weekStartsOn) + 7
      : nextMonthStart(monthStart(start));
    const end = Math.min(next - 1, range.end);
    out.push({ start, end });
    start = end + 1;
  }
  return out;
}
