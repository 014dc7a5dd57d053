/**
 * Two-period comparison (`compare_periods`): means and medians of two date ranges, Hedges g and a
 * Mann–Whitney test whose z is shrunk to the effective number of days (statistics.md §1, §5),
 * read through the column's direction.
 */

import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { type Points, pointsIn, readChange } from "./_points.ts";
import { circularMean, isClock, levelMean, unwrapAround } from "./circular.ts";
import { hedgesG, mannWhitney, mean, median, normalTwoSidedP } from "./stats.ts";
import {
  autocorrelations,
  effectiveSizeLags,
  effectiveSizeOfMean,
  removeWeekdayMeans,
} from "./adjust.ts";

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
  /** Effective number of independent days behind the two means together (NaN when not run). */
  nEff: number;
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
 * Effective days of both periods together: each value minus its period's mean, then minus its
 * weekday mean (neither the level change under test nor the weekly rhythm is persistence), and
 * n / (1 + 2 Σ (1 − k/n)·ρ(k)) over the residuals' autocorrelation (Bartlett; clamped to [2, n]).
 */
function pooledEffectiveSize(
  a: { days: Int32Array; values: Float64Array },
  b: { days: Int32Array; values: Float64Array },
): number {
  const [first, second] = a.days[0] < b.days[0] ? [a, b] : [b, a];
  const n = first.days.length + second.days.length;
  const days = new Float64Array(n), values = new Float64Array(n);
  let k = 0;
  for (const part of [first, second]) {
    const m = mean(part.values);
    for (let i = 0; i < part.days.length; i++, k++) {
      days[k] = part.days[i];
      values[k] = part.values[i] - m;
    }
  }
  const residual = removeWeekdayMeans(days, values);
  return effectiveSizeOfMean(n, autocorrelations(days, residual, effectiveSizeLags(n)));
}

/**
 * Times of day of both periods unwrapped around one centre, the circular mean of both together
 * (each period alone is unwrapped around its own, which could put them a day apart).
 */
function alignClock(pa: Points, pb: Points): void {
  const both = new Float64Array(pa.values.length + pb.values.length);
  both.set(pa.values);
  both.set(pb.values, pa.values.length);
  const center = circularMean(both);
  if (Number.isNaN(center)) return;
  pa.values = unwrapAround(pa.values, center);
  pb.values = unwrapAround(pb.values, center);
}

/**
 * Compares logged values in A with those in B. A verdict other than no_clear_difference needs at
 * least 5 values in each, Mann–Whitney p < 0.05 and |g| ≥ 0.2.
 */
export function comparePeriodValues(
  { record, column, a, b }: ComparePeriodValuesOptions,
): Comparison {
  const pa = pointsIn(record, column, a), pb = pointsIn(record, column, b);
  if (isClock(column)) alignClock(pa, pb);
  const va = pa.values, vb = pb.values;
  const summary = (range: DayRange, v: Float64Array): PeriodSummary => ({
    range,
    n: v.length,
    mean: levelMean(column, v),
    median: median(v),
  });
  const sa = summary(a, va), sb = summary(b, vb);
  if (va.length < MIN_PERIOD_VALUES || vb.length < MIN_PERIOD_VALUES) {
    return { a: sa, b: sb, g: NaN, p: NaN, nEff: NaN, verdict: "insufficient_data" };
  }
  const g = hedgesG(va, vb);
  const n = va.length + vb.length;
  const nEff = pooledEffectiveSize(pa, pb);
  // scaling z by √(n_eff/n) is an approximation for autocorrelated days (statistics.md §5)
  const p = normalTwoSidedP(mannWhitney(va, vb).z * Math.sqrt(nEff / n));
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
  return { a: sa, b: sb, g, p, nEff, verdict };
}
