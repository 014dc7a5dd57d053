/**
 * Day-of-week pattern (domain-anchors §3.3 "Weekday pattern"): mean per ISO weekday, η² and a
 * Kruskal–Wallis test across weekdays whose H is scaled to the effective number of days, since
 * persistent days (a sick week, a good month) are not independent evidence (statistics.md §1).
 */

import { weekdayOf } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { pointsIn } from "./_points.ts";
import { levelMean } from "./circular.ts";
import { chiSquareSf, kruskalWallis, mean } from "./stats.ts";
import {
  autocorrelations,
  chooseAdjustment,
  effectiveSizeLags,
  effectiveSizeOfMean,
  residualize,
} from "./adjust.ts";

/** Values a weekday needs before its mean is reported (and it joins the test). */
export const MIN_WEEKDAY_VALUES = 3;
/** η² from which a significant pattern is "clear" (a medium effect by Cohen's bands). */
export const CLEAR_ETA_SQUARED = 0.06;
/** Kruskal–Wallis significance level. */
export const WEEKDAY_ALPHA = 0.05;

/** How pronounced the weekly pattern is. */
export type PatternStrength = "none" | "weak" | "clear";

/** One weekday (0 = Monday) with its values' mean (NaN when fewer than 3 values). */
export interface WeekdayGroup {
  weekday: number;
  n: number;
  mean: number;
}

/** Unrounded weekday pattern. */
export interface WeekdayPattern {
  n: number;
  overallMean: number;
  groups: WeekdayGroup[];
  /** Weekdays with at least 3 values: the ones compared. */
  compared: number;
  etaSquared: number;
  /** Effective number of independent days (NaN when not tested). */
  nEff: number;
  p: number;
  strength: PatternStrength;
  withheld: { reason: "too_few_weekdays" | "zero_variance"; needed: number; have: number } | null;
}

/**
 * Groups the logged values of `range` by ISO weekday. η² (between-weekday SS / total SS) and
 * Kruskal–Wallis use only weekdays with ≥ 3 values; clear if p < 0.05 and η² ≥ 0.06, weak if
 * p < 0.05, else none.
 */
export function weekdayPattern(
  record: MemberRecord,
  column: Column,
  range: DayRange,
): WeekdayPattern {
  const { days, values } = pointsIn(record, column, range);
  const byDay: number[][] = [[], [], [], [], [], [], []];
  for (let i = 0; i < days.length; i++) byDay[weekdayOf(days[i])].push(values[i]);
  const groups = byDay.map((g, weekday) => ({
    weekday,
    n: g.length,
    mean: g.length >= MIN_WEEKDAY_VALUES ? levelMean(column, g) : NaN,
  }));
  const used = byDay.filter((g) => g.length >= MIN_WEEKDAY_VALUES);
  const base = {
    n: values.length,
    overallMean: levelMean(column, values),
    groups,
    compared: used.length,
  };
  const none = { etaSquared: NaN, nEff: NaN, p: NaN, strength: "none" as const };
  if (used.length < 2) {
    return {
      ...base,
      ...none,
      withheld: { reason: "too_few_weekdays", needed: 2, have: used.length },
    };
  }
  const pooled = used.flat();
  const grand = mean(pooled);
  let total = 0, between = 0;
  for (const x of pooled) total += (x - grand) ** 2;
  for (const g of used) between += g.length * (mean(g) - grand) ** 2;
  if (!(total > 0)) {
    return { ...base, ...none, withheld: { reason: "zero_variance", needed: 2, have: 1 } };
  }
  const etaSquared = between / total;
  const nEff = effectiveDays(days, values);
  const kw = kruskalWallis(used);
  // H is approximately χ² with df = groups − 1 for independent days; autocorrelation inflates it
  // by about n/n_eff (the z² scaling of statistics.md §5 carried over; an approximation)
  const p = chiSquareSf(kw.h * (nEff / values.length), kw.df);
  const strength: PatternStrength = p < WEEKDAY_ALPHA
    ? (etaSquared >= CLEAR_ETA_SQUARED ? "clear" : "weak")
    : "none";
  return { ...base, etaSquared, nEff, p, strength, withheld: null };
}

/**
 * Effective days of a series for a weekday test: autocorrelation of what is left after its
 * weekday means and trend are removed (the pattern under test is not persistence).
 */
function effectiveDays(days: Int32Array, values: Float64Array): number {
  const residual = residualize(days, values, chooseAdjustment(days, "weekday_trend"));
  const lags = effectiveSizeLags(values.length);
  return effectiveSizeOfMean(values.length, autocorrelations(days, residual, lags));
}
