/**
 * Time of day is circular (issue #20): 23:30 and 00:30 are an hour apart, and their mean is
 * 00:00, not the 12:00 an arithmetic mean of 1410 and 30 minutes gives. A `time_of_day` column's
 * values (minutes after midnight, 0–1439) are therefore read on a 24-hour circle:
 *
 * - the mean is the circular mean, atan2 of the mean sine and cosine (Fisher, "Statistical
 *   Analysis of Circular Data", 1993);
 * - the spread is the circular standard deviation √(−2 ln R̄), in minutes (same source);
 * - everything linear — trends, correlations, group differences, medians, ranks — runs on the
 *   values unwrapped around their circular mean (each value moved by whole days to within 12 h of
 *   it), so 00:30 reads as 24:30 beside a 23:30 habit; the levels reported are wrapped back to a
 *   clock time (`clockLevel`), differences and slopes stay in minutes.
 */

import type { Column } from "../record/types.ts";
import { mean } from "./stats.ts";

/** Minutes in the circle of a time of day. */
export const DAY_MINUTES = 1440;
const HALF = DAY_MINUTES / 2;
const TO_RAD = (2 * Math.PI) / DAY_MINUTES;

/** Whether a column's values are times of day (read on the circle). */
export function isClock(column: Column): boolean {
  return column.type === "time_of_day";
}

/** A minute count as a clock time in [0, 1440). */
export function wrapClock(x: number): number {
  return ((x % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
}

/** The signed shortest way round from `from` to `to`, in minutes, in [−720, 720). */
export function clockDifference(to: number, from: number): number {
  return wrapClock(to - from + HALF) - HALF;
}

/** Mean resultant length R̄ and direction of times of day; NaN direction for none. */
function resultant(xs: ArrayLike<number>): { r: number; angle: number } {
  const n = xs.length;
  if (n === 0) return { r: NaN, angle: NaN };
  let s = 0, c = 0;
  for (let i = 0; i < n; i++) {
    s += Math.sin(xs[i] * TO_RAD);
    c += Math.cos(xs[i] * TO_RAD);
  }
  return { r: Math.hypot(s, c) / n, angle: Math.atan2(s, c) };
}

/**
 * The circular mean of times of day in [0, 1440); NaN for no values or when they balance round
 * the clock (R̄ below 1e-9: no mean direction exists).
 */
export function circularMean(xs: ArrayLike<number>): number {
  const { r, angle } = resultant(xs);
  if (!(r > 1e-9)) return NaN;
  return wrapClock(angle / TO_RAD);
}

/** The circular standard deviation √(−2 ln R̄) in minutes; NaN for fewer than two values. */
export function circularSd(xs: ArrayLike<number>): number {
  if (xs.length < 2) return NaN;
  const { r } = resultant(xs);
  return Math.sqrt(-2 * Math.log(Math.min(1, r))) / TO_RAD;
}

/** Each value moved by whole days to within 12 h of `center` (in place on a copy). */
export function unwrapAround(xs: ArrayLike<number>, center: number): Float64Array {
  const out = new Float64Array(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = center + clockDifference(xs[i], center);
  return out;
}

/**
 * Times of day unwrapped around their circular mean (see the module comment); unchanged when no
 * mean direction exists.
 */
export function unwrapClock(xs: ArrayLike<number>): Float64Array {
  const center = circularMean(xs);
  if (Number.isNaN(center)) return Float64Array.from(xs as ArrayLike<number>);
  return unwrapAround(xs, center);
}

/**
 * The mean of `column`'s values: the circular mean for a time of day, given near the values
 * (unwrapped values keep their scale, so 24:10 stays 1450, not 10), else the arithmetic mean.
 */
export function levelMean(column: Column, xs: ArrayLike<number>): number {
  const m = mean(xs);
  if (!isClock(column) || Number.isNaN(m)) return m;
  const c = circularMean(xs);
  return Number.isNaN(c) ? m : m + clockDifference(c, m);
}

/** A reported level (mean, median, quantile) of `column`: a clock time in [0, 1440) for a time. */
export function clockLevel(column: Column, x: number): number {
  if (!isClock(column) || !Number.isFinite(x)) return x;
  const w = wrapClock(x);
  // 1439.996 would print as 1440.00 at two decimals, a minute the column cannot hold: midnight
  return w >= DAY_MINUTES - 0.005 ? 0 : w;
}

/** What a tool's `definition` adds for a time-of-day column. */
export const CLOCK_DEFINITION =
  "Times of day are read on a 24-hour circle: means are circular means (atan2 of the mean sine " +
  "and cosine), spreads circular SDs in minutes, and medians, ranks, tests and slopes run on the " +
  "times unwrapped to within 12 hours of their circular mean; levels are reported as minutes " +
  "after midnight (0–1439) and differences as signed minutes.";

/** `definition` followed by the clock sentence for a time-of-day column. */
export function withClockDefinition(column: Column, definition: string): string {
  return isClock(column) ? `${definition} ${CLOCK_DEFINITION}` : definition;
}

/** Minutes after midnight as "HH:MM" (wrapped onto the clock first, so −30 reads "23:30"). */
export function clockText(minutes: number): string {
  const m = Math.round(wrapClock(minutes)) % DAY_MINUTES;
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}
