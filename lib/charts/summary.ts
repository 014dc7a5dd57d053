/**
 * The numbers a History chart states in words — its accessible name and its visible summary. They
 * come from the analytics the tools run (`summaryStats` is `get_summary_stats`, `dailyAttainment`
 * is `get_goal_progress`), never from a second implementation, so the page and an agent asking
 * about the same window read the same figures.
 */

import { type DayNumber, formatDay } from "../foundation/dates.ts";
import type { Column, DayValue } from "../record/types.ts";
import { summaryStats } from "../analytics/aggregates.ts";
import type { DayRange } from "../analytics/common.ts";
import { dailyAttainment } from "../analytics/goal_progress.ts";
import { type DateWords, formatAmount, goalWords, plainNumber } from "./format.ts";
import type { ChartBucket } from "./buckets.ts";

/** What a chart's text alternative says. */
export interface ChartSummary {
  range: DayRange;
  /** Days in the window. */
  days: number;
  /** Days with a value (skips excluded). */
  logged: number;
  mean: number | null;
  min: { value: number; date: string } | null;
  max: { value: number; date: string } | null;
  /** Additive columns (`daily_agg: sum`) only. */
  sum: number | null;
  /** Booleans: share of logged days that are "yes". */
  trueRate: number | null;
  /** Day-level goal attainment; `null` for a column without a goal. */
  goal: { words: string; met: number; eligible: number } | null;
  /** The chart's accessible name: label, window, then the numbers. */
  name: string;
  /** The same numbers as short phrases, for the visible summary under the chart. */
  phrases: string[];
}

/** "last 30 days". */
export function windowWords(days: number): string {
  return `last ${days} days`;
}

/** What one mark of a bucketed chart is, in words ("each mark a week's average"). */
function bucketPhrase(column: Column, bucket: ChartBucket): string | null {
  if (bucket === "day") return null;
  return column.type === "boolean"
    ? `each bar a ${bucket}'s share of yes days`
    : `each mark a ${bucket}'s average a logged day`;
}

/**
 * The date of a minimum or maximum: without its year when it is the year of `today` (a window of a
 * month reads "3 November"), with it otherwise (all time spans years: "3 November 2024").
 */
function extremeDate(iso: string, today: DayNumber, dates: DateWords): string {
  return dates.date(iso, iso.slice(0, 4) !== formatDay(today).slice(0, 4));
}

function amountPhrases(
  column: Column,
  s: ReturnType<typeof summaryStats>,
  when: (iso: string) => string,
): string[] {
  if (s.n === 0) return ["nothing logged"];
  if (column.type === "boolean") {
    // A yes/no goal says the same thing as the yes-share, in the goal's own count (below).
    if (column.goal) return [];
    return [`yes on ${Math.round((s.true_rate ?? 0) * s.n)} of ${s.n} logged days`];
  }
  const out: string[] = [];
  if (s.sum !== null) out.push(`total ${formatAmount(column, s.sum)}`);
  const avg = formatAmount(column, Math.round(s.mean! * 10) / 10);
  out.push(s.sum !== null ? `average ${avg} a logged day` : `average ${avg}`);
  out.push(`min ${formatAmount(column, s.min!.value)} (${when(s.min!.date)})`);
  out.push(`max ${formatAmount(column, s.max!.value)} (${when(s.max!.date)})`);
  return out;
}

function goalPhrase(column: Column, goal: { words: string; met: number; eligible: number }) {
  const count = `${plainNumber(goal.met)} of ${plainNumber(goal.eligible)} days`;
  if (column.goal?.op !== "true") return `goal ${goal.words} met on ${count}`;
  const weekly = column.goal.per === "week"
    ? ` (goal: ${column.goal.times ?? 1} times a week)`
    : "";
  return `done on ${count}${weekly}`;
}

/**
 * Summarises `column` over the `days` days ending `today` (the member's today): logged days,
 * average / total / min / max (or the yes-share of a yes/no column) and how often the day-level
 * goal was met, counted as `get_goal_progress` counts (skips and, for `missing_policy: neutral`,
 * missing days are not eligible; a today that does not qualify yet is not held against the goal).
 */
export function summaryOf(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  window: { today: DayNumber; days: number; words?: string; dates: DateWords },
  bucket: ChartBucket = "day",
): ChartSummary {
  const range = { start: window.today - window.days + 1, end: window.today };
  const stats = summaryStats(column, series, range);
  const words = goalWords(column);
  const goal = words === null
    ? null
    : { words, ...dailyAttainment({ column, series, range, today: window.today }) };
  const when = (iso: string) => extremeDate(iso, window.today, window.dates);
  const phrases = amountPhrases(column, stats, when);
  if (goal && goal.eligible > 0) phrases.push(goalPhrase(column, goal));
  phrases.push(`logged on ${stats.n} of ${stats.days_in_range} days`);
  const marks = bucketPhrase(column, bucket);
  if (marks) phrases.push(marks);
  return {
    range,
    days: stats.days_in_range,
    logged: stats.n,
    mean: stats.mean,
    min: stats.min,
    max: stats.max,
    sum: stats.sum,
    trueRate: stats.true_rate,
    goal,
    name: `${column.label} — ${window.words ?? windowWords(window.days)}: ${phrases.join(", ")}`,
    phrases,
  };
}
