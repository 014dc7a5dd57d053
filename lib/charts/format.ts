/**
 * How the History page writes a column's values and goals in words, and the shape of its date
 * style (`DateWords`, whose styles are components/dates.ts's). Shared by the chart names, the
 * summaries and the table of days, so the three always say the same number the same way.
 */

import { clockText } from "../analytics/circular.ts";
import type { Column, DayValue } from "../record/types.ts";

/**
 * How the History page writes dates: in the member's date locale, one style on every page (issue
 * #25). The styles live in components/dates.ts, which lib/ may not import (tests/_layering.ts), so
 * the page's route hands them down (`dateWords(locale)` there) and nothing in lib/ spells a month.
 * Days are ISO dates (`2026-11-26`); the examples are en-GB's, en-US puts the month first.
 */
export interface DateWords {
  /** A day in a sentence: `26 November 2026`, or `26 November` without the year. */
  date(day: string, withYear: boolean): string;
  /** A day heading a row: `Thursday 26 November 2026`, or `Thursday 26 November`. */
  weekdayDate(day: string, withYear: boolean): string;
  /** The month a day lies in: `November 2026`. */
  month(day: string): string;
  /** A chart axis' label, where room is short: `26 Nov`, `Nov` or `Nov 2026`. */
  tick(day: string, part: "day" | "month" | "monthYear"): string;
}

/** Minutes after midnight as "07:05". */
export function clockTime(minutes: number): string {
  return clockText(minutes);
}

const formats = new Map<number, Intl.NumberFormat>();

/** A number with at most `dp` decimals and thousands separators ("12,500", "7.25"). */
export function plainNumber(x: number, dp = 2): string {
  // One formatter per precision: `toLocaleString` with options builds a new one on every call,
  // which costs more than the rest of a 365-row table together.
  let format = formats.get(dp);
  if (!format) {
    format = new Intl.NumberFormat("en-US", { maximumFractionDigits: dp });
    formats.set(dp, format);
  }
  return format.format(x);
}

/**
 * One numeric value of `column` in words with its unit: "7.5 h", "45 min", "23:15", "4 of 5",
 * "12,000 steps". Booleans read as yes/no (a mean of booleans is a share, see `summaryOf`).
 */
export function formatAmount(column: Column, x: number): string {
  switch (column.type) {
    case "boolean":
      return x >= 0.5 ? "yes" : "no";
    case "time_of_day":
      return clockTime(x);
    case "duration_min":
      return `${plainNumber(x, 1)} min`;
    case "scale":
      return `${plainNumber(x, 2)} of ${column.scale_max ?? 5}`;
    default:
      return column.unit ? `${plainNumber(x)} ${column.unit}` : plainNumber(x);
  }
}

/** A stored day value in words: a value, "skipped", or "—" when nothing is logged. */
export function formatDayValue(column: Column, value: DayValue | undefined): string {
  if (value === undefined) return "—";
  if (value === "skip") return "skipped";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return formatAmount(column, value);
}

/** The day-level goal in words ("at least 8 h", "done", "at most 23:00"); `null` without one. */
export function goalWords(column: Column): string | null {
  const goal = column.goal;
  if (!goal) return null;
  const times = goal.per === "week" ? ` (${goal.times ?? 1} times a week)` : "";
  if (goal.op === "true") return `done${times}`;
  const op = goal.op === "at_least" ? "at least" : goal.op === "at_most" ? "at most" : "exactly";
  return `${op} ${formatAmount(column, goal.value ?? 0)}${times}`;
}
