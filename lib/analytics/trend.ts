/**
 * Trend (domain-anchors §3.3 "Trend", statistics.md §2): the last `days` against the `days`
 * before them, with a Mann–Kendall test and a Theil–Sen slope over both windows together. By
 * default the test runs on values with their weekday means removed (the weekly cycle is not a
 * trend) and with the Hamed–Rao variance correction for autocorrelation over the first 3 lags
 * (persistent days are not independent evidence).
 */

import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { type ChangeReading, pointsIn, readChange } from "./_points.ts";
import { mannKendall, sd, theilSenSlope } from "./stats.ts";
import { mannKendallHamedRao, removeWeekdayMeans } from "./adjust.ts";
import { circularSd, isClock, levelMean } from "./circular.ts";
import { type LoggingPattern, loggingPattern } from "./logging_pattern.ts";

/**
 * How the Mann–Kendall test is run: on weekday-adjusted values with the Hamed–Rao correction
 * (default), or plain on the values as logged.
 */
export type TrendAdjust = "weekday_autocorrelation" | "none";

/** Lags of the Hamed–Rao correction (the authors' "first 3 lags" option; statistics.md §2). */
export const HAMED_RAO_LAGS = 3;

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
  /** Hamed–Rao variance inflation n/n* (1 when not adjusted). */
  inflation: number;
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
  /** Default `weekday_autocorrelation` (weekday-adjusted values, Hamed–Rao over 3 lags). */
  adjust?: TrendAdjust;
}

/**
 * Compares the window `current` with the equally long window just before it. The verdict is
 * not "stable" only if Mann–Kendall p < 0.05 over both windows, |delta| ≥ 0.2 × the previous
 * window's SD, and the Mann–Kendall S has the same sign as delta (a test that points the other
 * way from the means is no evidence for the move).
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
  const none = { slopePerDay: NaN, s: NaN, p: NaN, inflation: NaN };
  if (after.length < MIN_TREND_VALUES || before.length < MIN_TREND_VALUES) {
    return { ...base, ...none, verdict: "insufficient_data" };
  }
  // Unlike windows are refused, not thinned: when a member logs a column more on some kinds of
  // days (good ones, say) in one window, no subset of days makes the windows alike (issue #20).
  if (base.logging.frequencyChanged) return { ...base, ...none, verdict: "not_comparable" };
  const mk = adjust === "none"
    ? { ...mannKendall(both.values), inflation: 1 }
    : mannKendallHamedRao(both.days, removeWeekdayMeans(both.days, both.values), HAMED_RAO_LAGS);
  const slopePerDay = theilSenSlope(both.days, both.values);
  const delta = currentMean - previousMean;
  const moved = mk.p < TREND_ALPHA &&
    Math.abs(delta) >= MIN_TREND_EFFECT * previousSd &&
    Math.sign(mk.s) === Math.sign(delta);
  return {
    ...base,
    slopePerDay,
    s: mk.s,
    p: mk.p,
    inflation: mk.inflation,
    verdict: moved ? readChange(column, previousMean, currentMean) : "stable",
  };
}
