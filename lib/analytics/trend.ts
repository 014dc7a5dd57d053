/**
 * Trend (domain-anchors §3.3 "Trend", statistics.md §2): the last `days` against the `days`
 * before them, with a Mann–Kendall test and a Theil–Sen slope over both windows together. By
 * default the test runs on values with their weekday means removed (the weekly cycle is not a
 * trend); either way its variance is widened by an AR(1) model of day-to-day persistence
 * (`mannKendallAr1`: persistent days are not independent evidence). Hamed–Rao over 3 lags, used
 * before issue #20, rejected 11–15 % of trendless persistent series at 14–28 days.
 */

import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { type ChangeReading, pointsIn, readChange } from "./_points.ts";
import { sd, theilSenSlope } from "./stats.ts";
import { chooseAdjustment, mannKendallAr1, removeWeekdayMeans } from "./adjust.ts";
import { circularSd, isClock, levelMean } from "./circular.ts";
import { type LoggingPattern, loggingPattern } from "./logging_pattern.ts";

/**
 * What the Mann–Kendall test runs on: weekday-adjusted values (default) or the values as logged;
 * both with the AR(1) persistence correction.
 */
export type TrendAdjust = "weekday_autocorrelation" | "none";

/**
 * Fewest effective days (n / f, the days once persistence is counted) behind a stated trend
 * p-value; below it `get_trend` states no p and no verdict, and says why (issue #20).
 */
export const MIN_TREND_EFFECTIVE_DAYS = 12;

/** Values needed in each window before a verdict is given. */
export const MIN_TREND_VALUES = 8;
/** Smallest change, in SDs of the previous window, that can count as a trend. */
export const MIN_TREND_EFFECT = 0.2;
/** Mann–Kendall significance level. */
export const TREND_ALPHA = 0.05;

/** The verdict of `get_trend`. */
export type TrendVerdict = ChangeReading | "stable" | "insufficient_data" | "not_comparable";

/** Unrounded trend figures; NaN where a figure cannot be computed. */
export interface Trend {
  current: DayRange;
  previous: DayRange;
  nCurrent: number;
  nPrevious: number;
  currentMean: number;
  previousMean: number;
  previousSd: number;
  /** Theil–Sen slope per day over both windows. */
  slopePerDay: number;
  /** Mann–Kendall over both windows. */
  s: number;
  p: number;
  /** Variance inflation f of the test from day-to-day persistence (AR(1) model; ≥ 1). */
  inflation: number;
  /** Bias-corrected AR(1) persistence φ of the detrended residuals. */
  phi: number;
  /** Effective days n / f behind the test. */
  nEff: number;
  /** Why no verdict: too few values in a window, or too few effective days; null otherwise. */
  withheld: "insufficient_values" | "insufficient_effective_days" | null;
  adjust: TrendAdjust;
  verdict: TrendVerdict;
  /** How often the column was logged in each window (current first). */
  logging: LoggingPattern;
}

/** What a trend compares: `current` against the equally long window before it. */
export interface ComputeTrendOptions {
  record: MemberRecord;
  column: Column;
  current: DayRange;
  /** Default `weekday_autocorrelation` (weekday-adjusted values); `none`: values as logged. */
  adjust?: TrendAdjust;
}

/**
 * Compares the window `current` with the equally long window just before it. The verdict is
 * not "stable" only if Mann–Kendall p < 0.05 over both windows, |delta| ≥ 0.2 × the previous
 * window's SD, and the Mann–Kendall S has the same sign as delta (a test that points the other
 * way from the means is no evidence for the move). Under `MIN_TREND_EFFECTIVE_DAYS` effective
 * days (or when persistence cannot be estimated) p is NaN and the verdict `insufficient_data`,
 * with `withheld` saying which rule held it back.
 */
export function computeTrend(
  { record, column, current, adjust = "weekday_autocorrelation" }: ComputeTrendOptions,
): Trend {
  const length = current.end - current.start + 1;
  const previous = { start: current.start - length, end: current.start - 1 };
  const both = pointsIn(record, column, { start: previous.start, end: current.end });
  // points are in day order, so the previous window is a prefix
  let split = 0;
  while (split < both.days.length && both.days[split] < current.start) split++;
  const before = both.values.subarray(0, split), after = both.values.subarray(split);
  // times of day: circular means and spread of the values unwrapped around their circular mean
  const currentMean = levelMean(column, after), previousMean = levelMean(column, before);
  const previousSd = isClock(column) ? circularSd(before) : sd(before);
  const base = {
    current,
    previous,
    nCurrent: after.length,
    nPrevious: before.length,
    currentMean,
    previousMean,
    previousSd,
    adjust,
    logging: loggingPattern(record, [{ column, range: current }, { column, range: previous }], {
      compared: true,
    }),
  };
  const none = { slopePerDay: NaN, s: NaN, p: NaN, inflation: NaN, phi: NaN, nEff: NaN };
  if (after.length < MIN_TREND_VALUES || before.length < MIN_TREND_VALUES) {
    return { ...base, ...none, verdict: "insufficient_data", withheld: "insufficient_values" };
  }
  // Unlike windows are refused, not thinned: when a member logs a column more on some kinds of
  // days (good ones, say) in one window, no subset of days makes the windows alike (issue #20).
  if (base.logging.frequencyChanged) {
    return { ...base, ...none, verdict: "not_comparable", withheld: null };
  }
  const mk = adjust === "none" ? mannKendallAr1(both.days, both.values, "trend") : mannKendallAr1(
    both.days,
    removeWeekdayMeans(both.days, both.values),
    chooseAdjustment(both.days, "weekday_trend"),
  );
  const slopePerDay = theilSenSlope(both.days, both.values);
  const fit = { slopePerDay, s: mk.s, inflation: mk.inflation, phi: mk.phi, nEff: mk.nEff };
  // S undefined: fewer than two distinct values, nothing moved (stable, no p)
  const varies = mk.varS > 0;
  if (varies && (!(mk.nEff >= MIN_TREND_EFFECTIVE_DAYS) || Number.isNaN(mk.p))) {
    // too persistent (or too gappy to tell) for a calibrated p: say so instead of guessing
    const withheld = "insufficient_effective_days" as const;
    return { ...base, ...fit, p: NaN, verdict: "insufficient_data", withheld };
  }
  const delta = currentMean - previousMean;
  const moved = mk.p < TREND_ALPHA &&
    Math.abs(delta) >= MIN_TREND_EFFECT * previousSd &&
    Math.sign(mk.s) === Math.sign(delta);
  return {
    ...base,
    ...fit,
    p: mk.p,
    verdict: moved ? readChange(column, previousMean, currentMean) : "stable",
    withheld: null,
  };
}
