/**
 * How a streak's length reads, on Today and on History alike: one wording per `get_streak` unit
 * (lib/analytics/streak.ts `StreakUnit`). A daily streak counts days, a weekly goal's counts
 * weeks, and a column where a missing day breaks nothing ("measurement") counts the logged days
 * that met the goal — "logged days", so nobody reads it as consecutive calendar days.
 */

import type { StreakUnit } from "../lib/analytics/streak.ts";

const WORDS: Record<StreakUnit, readonly [string, string]> = {
  day: ["day", "days"],
  week: ["week", "weeks"],
  measurement: ["logged day", "logged days"],
};

/** The unit of a streak of `n`: `streakUnitWords("week", 1)` → "week", `(…, 3)` → "weeks". */
export function streakUnitWords(unit: StreakUnit, n: number): string {
  const [one, many] = WORDS[unit];
  return n === 1 ? one : many;
}

/** A streak's length in words: `streakLength(6, "measurement")` → "6 logged days". */
export function streakLength(n: number, unit: StreakUnit): string {
  return `${n} ${streakUnitWords(unit, n)}`;
}

/**
 * A weekly goal's progress this week: `weekProgressWords({ done: 2, target: 3 })` → "2 of 3 this
 * week" (the landing page's promise; the target is `get_streak`'s pro-rated one).
 */
export function weekProgressWords(week: { done: number; target: number }): string {
  return `${week.done} of ${week.target} this week`;
}
