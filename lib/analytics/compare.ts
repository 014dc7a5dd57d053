/**
 * Two-period comparison (`compare_periods`): means and medians of two date ranges, Hedges g and a
 * Mann–Whitney test, read through the column's direction.
 */

import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { pointsIn, readChange } from "./_points.ts";
import { hedgesG, mannWhitney, mean, median } from "./stats.ts";

/** Values needed in each period before the periods are compared. */
export const MIN_PERIOD_VALUES = 5;
/** Significance level of the Mann–Whitney test. */
export const COMPARE_ALPHA = 0.05;
/** Smallest |Hedges g| that counts as a difference ("small" by Cohen's bands). */
export const MIN_EFFECT_G = 0.2;

/** The verdict of `compare_periods`, always about A relative to B. */
export type CompareVerdict =
  | "a_better"
  | "a_worse"
  | "a_higher"
  | "a_lower"
  | "no_clear_difference"
  | "insufficient_data";

/** One period's summary (unrounded; NaN where undefined). */
export interface PeriodSummary {
  range: DayRange;
  n: number;
  mean: number;
  median: number;
}

/** Unrounded comparison of A with B. */
export interface Comparison {
  a: PeriodSummary;
  b: PeriodSummary;
  g: number;
  p: number;
  verdict: CompareVerdict;
}

/** The two periods compared. */
export interface ComparePeriodValuesOptions {
  record: MemberRecord;
  column: Column;
  a: DayRange;
  b: DayRange;
}

/**
 * Compares logged values in A with those in B. A verdict other than no_clear_difference needs at
 * least 5 values in each, Mann–Whitney p < 0.05 and |g| ≥ 0.2.
 */
export function comparePeriodValues(
  { record, column, a, b }: ComparePeriodValuesOptions,
): Comparison {
  const va = pointsIn(record, column, a).values;
  const vb = pointsIn(record, column, b).values;
  const summary = (range: DayRange, v: Float64Array): PeriodSummary => ({
    range,
    n: v.length,
    mean: mean(v),
    median: median(v),
  });
  const sa = summary(a, va), sb = summary(b, vb);
  if (va.length < MIN_PERIOD_VALUES || vb.length < MIN_PERIOD_VALUES) {
    return { a: sa, b: sb, g: NaN, p: NaN, verdict: "insufficient_data" };
  }
  const g = hedgesG(va, vb);
  const p = mannWhitney(va, vb).p;
  let verdict: CompareVerdict = "no_clear_difference";
  if (p < COMPARE_ALPHA && Math.abs(g) >= MIN_EFFECT_G) {
    const reading = readChange(column, sb.mean, sa.mean);
    verdict = reading === "improving"
      ? "a_better"
      : reading === "worsening"
      ? "a_worse"
      : reading === "increasing"
      ? "a_higher"
      : "a_lower";
  }
  return { a: sa, b: sb, g, p, verdict };
}
