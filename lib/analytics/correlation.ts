/**
 * Lagged correlation between two columns (domain-anchors §3.3 "Correlation"): value of A on day d
 * paired with B on day d + lag, only where both are logged, with the withholding rules. Shared by
 * `get_correlation` and `find_correlations`; this is the benchmarked hot path, so values go
 * through preallocated typed arrays and nothing is formatted here.
 */

import { type DayNumber, weekdayOf } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { MAX_SPAN_DAYS } from "../record/columns.ts";
import type { DayRange } from "./common.ts";
import { averageRanks, correlationP, fisherCi95, pearson } from "./stats.ts";
import { daysWord, moreOf, phraseOf } from "./_wording.ts";

/** Which correlation coefficient. */
export type CorrelationMethod = "spearman" | "pearson";

/** Whether each series has its per-weekday mean removed first. */
export type Detrend = "none" | "weekday";

/** |r| bands of domain-anchors §3.3. */
export type Strength = "negligible" | "weak" | "moderate" | "strong";

/** Evidence bands of domain-anchors §3.3. */
export type Confidence = "high" | "medium" | "low";

/** Why a correlation was not computed, with the threshold and what the data had. */
export interface WithheldReason {
  reason:
    | "insufficient_pairs"
    | "boolean_class_too_small"
    | "too_few_levels"
    | "zero_variance";
  needed: number;
  have: number;
}

/** Minimum pairs before a correlation is reported. */
export const MIN_PAIRS = 14;
/** Minimum days in each class of a boolean side. */
export const MIN_BOOLEAN_CLASS = 5;
/** Minimum distinct levels on a scale side. */
export const MIN_SCALE_LEVELS = 3;

/** The computed (unrounded) correlation of one pair of columns at one lag. */
export interface Correlation {
  /** The coefficient, or NaN when withheld. */
  r: number;
  /** Number of (A on d, B on d + lag) pairs with both logged. */
  n: number;
  /** Two-sided p, or NaN when withheld. */
  p: number;
  /** Fisher-z 95 % interval, or NaN bounds when withheld. */
  ciLow: number;
  ciHigh: number;
  /** Day of A in the earliest pair (null when there are no pairs). */
  firstA: DayNumber | null;
  /** Days in the range on which A / B have a value (skip and missing excluded). */
  daysWithA: number;
  daysWithB: number;
  withheld: WithheldReason | null;
}

// Scratch buffers reused by every call: the work is synchronous, so no two calls overlap.
const scratchA = new Float64Array(MAX_SPAN_DAYS);
const scratchB = new Float64Array(MAX_SPAN_DAYS);
const pairA = new Float64Array(MAX_SPAN_DAYS);
const pairB = new Float64Array(MAX_SPAN_DAYS);
const pairDayA = new Int32Array(MAX_SPAN_DAYS);
const weekdaySum = new Float64Array(7);
const weekdayCount = new Int32Array(7);

/** One column's values to read into a scratch array. */
interface ReadDaysOptions {
  record: MemberRecord;
  column: Column;
  range: DayRange;
  out: Float64Array;
}

/** Reads the numeric values of `column` on each day of `range` into `out` (NaN = none). */
function readDays({ record, column, range, out }: ReadDaysOptions): number {
  const values = record.values.get(column.key);
  const span = range.end - range.start + 1;
  let count = 0;
  for (let i = 0; i < span; i++) {
    const v = values?.get(range.start + i);
    if (v === undefined || v === "skip") out[i] = NaN;
    else {
      out[i] = typeof v === "boolean" ? (v ? 1 : 0) : v;
      count++;
    }
  }
  return count;
}

/** Number of distinct values among the first n of xs (stops counting at `cap`). */
function distinctCount(xs: Float64Array, n: number, cap: number): number {
  const seen: number[] = [];
  for (let i = 0; i < n && seen.length < cap; i++) {
    if (!seen.includes(xs[i])) seen.push(xs[i]);
  }
  return seen.length;
}

/** How many of the first n of xs are 1 (true). */
function countOnes(xs: Float64Array, n: number): number {
  let ones = 0;
  for (let i = 0; i < n; i++) if (xs[i] === 1) ones++;
  return ones;
}

/** The values to de-season. */
interface RemoveWeekdayMeansOptions {
  xs: Float64Array;
  days: Int32Array;
  shift: number;
  n: number;
}

/** Subtracts, from each paired value, the mean of its weekday among the pairs. */
function removeWeekdayMeans({ xs, days, shift, n }: RemoveWeekdayMeansOptions) {
  weekdaySum.fill(0);
  weekdayCount.fill(0);
  for (let i = 0; i < n; i++) {
    const w = weekdayOf(days[i] + shift);
    weekdaySum[w] += xs[i];
    weekdayCount[w]++;
  }
  for (let i = 0; i < n; i++) {
    const w = weekdayOf(days[i] + shift);
    xs[i] -= weekdaySum[w] / weekdayCount[w];
  }
}

/** Checks one side against the boolean-class and scale-level rules. */
function sideWithheld(column: Column, xs: Float64Array, n: number): WithheldReason | null {
  if (column.type === "boolean") {
    const ones = countOnes(xs, n);
    const smaller = Math.min(ones, n - ones);
    if (smaller < MIN_BOOLEAN_CLASS) {
      return { reason: "boolean_class_too_small", needed: MIN_BOOLEAN_CLASS, have: smaller };
    }
  } else if (column.type === "scale") {
    const levels = distinctCount(xs, n, MIN_SCALE_LEVELS);
    if (levels < MIN_SCALE_LEVELS) {
      return { reason: "too_few_levels", needed: MIN_SCALE_LEVELS, have: levels };
    }
  }
  if (distinctCount(xs, n, 2) < 2) return { reason: "zero_variance", needed: 2, have: 1 };
  return null;
}

/** What one correlation compares: columns a and b (b lagged by lag days), over range, by method. */
export interface CorrelateOptions {
  record: MemberRecord;
  a: Column;
  b: Column;
  lag: number;
  range: DayRange;
  method: CorrelationMethod;
  detrend: Detrend;
}

/**
 * Correlates A on day d with B on day d + `lag` for every d with both days inside `range` and
 * both values logged. Withholds (r = NaN, `withheld` set) below 14 pairs, with a boolean side
 * under 5 days in either class, a scale side under 3 levels, or a constant side.
 */
export function correlate(
  { record, a, b, lag, range, method, detrend }: CorrelateOptions,
): Correlation {
  const span = range.end - range.start + 1;
  const daysWithA = readDays({ record, column: a, range, out: scratchA });
  const daysWithB = readDays({ record, column: b, range, out: scratchB });
  // offset i of A pairs with offset i + lag of B; both must fall inside the range
  const from = Math.max(0, -lag), to = Math.min(span, span - lag);
  let n = 0;
  for (let i = from; i < to; i++) {
    const va = scratchA[i], vb = scratchB[i + lag];
    if (va === va && vb === vb) { // NaN ≠ NaN: both present
      pairA[n] = va;
      pairB[n] = vb;
      pairDayA[n] = range.start + i;
      n++;
    }
  }
  const base = {
    n,
    firstA: n > 0 ? pairDayA[0] : null,
    daysWithA,
    daysWithB,
  };
  const withheld: WithheldReason | null = n < MIN_PAIRS
    ? { reason: "insufficient_pairs", needed: MIN_PAIRS, have: n }
    : sideWithheld(a, pairA, n) ?? sideWithheld(b, pairB, n);
  if (withheld) return { ...base, r: NaN, p: NaN, ciLow: NaN, ciHigh: NaN, withheld };

  const x = pairA.subarray(0, n), y = pairB.subarray(0, n);
  if (detrend === "weekday") {
    removeWeekdayMeans({ xs: x, days: pairDayA, shift: 0, n });
    removeWeekdayMeans({ xs: y, days: pairDayA, shift: lag, n });
  }
  const r = method === "spearman" ? pearson(averageRanks(x), averageRanks(y)) : pearson(x, y);
  if (Number.isNaN(r)) {
    // only reachable after detrending: all variation was the weekday pattern
    return {
      ...base,
      r: NaN,
      p: NaN,
      ciLow: NaN,
      ciHigh: NaN,
      withheld: { reason: "zero_variance", needed: 2, have: 1 },
    };
  }
  const [ciLow, ciHigh] = fisherCi95(r, n);
  return { ...base, r, p: correlationP(r, n), ciLow, ciHigh, withheld: null };
}

/** |r| < 0.1 negligible, < 0.3 weak, < 0.5 moderate, else strong. */
export function strengthOf(r: number): Strength {
  const m = Math.abs(r);
  return m < 0.1 ? "negligible" : m < 0.3 ? "weak" : m < 0.5 ? "moderate" : "strong";
}

/** "positive" or "negative" by the sign of r; `null` for exactly 0 or NaN. */
export function directionOf(r: number): "positive" | "negative" | null {
  return r > 0 ? "positive" : r < 0 ? "negative" : null;
}

/** High if p < 0.01 and n ≥ 30; medium if p < 0.05; else low. */
export function confidenceOf(p: number, n: number): Confidence {
  return p < 0.01 && n >= 30 ? "high" : p < 0.05 ? "medium" : "low";
}

/** "on days with", "on days after", "2 days after", "on days before" … for a lag. */
function timing(lag: number): string {
  if (lag === 0) return "on days with";
  if (lag === 1) return "on days after";
  if (lag === -1) return "on days before";
  return lag > 0 ? `${daysWord(lag)} after` : `${daysWord(-lag)} before`;
}

/** What A looks like on its side of a pair: "more steps", "higher mood", "workout". */
function sidePhrase(column: Column, positive: boolean): string {
  if (column.type === "boolean") return positive ? phraseOf(column) : `no ${phraseOf(column)}`;
  return `${moreOf(column)} ${phraseOf(column)}`;
}

/** What the correlation sentence describes. */
export interface CorrelationSentenceOptions {
  a: Column;
  b: Column;
  lag: number;
  c: Pick<Correlation, "r" | "p" | "n" | "withheld">;
}

/**
 * A second-person sentence (Exist style), e.g. "Your mood tends to be higher on days after
 * more sleep hours." B is the subject; A, lagged, is the condition.
 */
export function correlationSentence({ a, b, lag, c }: CorrelationSentenceOptions): string {
  const pa = phraseOf(a), pb = phraseOf(b);
  if (c.withheld) {
    return `There is not enough usable data to relate your ${pa} and your ${pb} (${
      withheldText(c.withheld)
    }).`;
  }
  const when = lag === 0
    ? "on the same day"
    : lag > 0
    ? `${daysWord(lag)} later`
    : `${daysWord(-lag)} earlier`;
  const strength = strengthOf(c.r);
  if (strength === "negligible") {
    return `Your ${pb} shows no meaningful link with your ${pa} (${pb} measured ${when}).`;
  }
  const higher = c.r > 0 ? "higher" : "lower";
  const degree = strength === "weak" ? "slightly " : "";
  const core = `${degree}${higher} ${timing(lag)} ${sidePhrase(a, true)}`;
  return confidenceOf(c.p, c.n) === "low"
    ? `Your ${pb} may be ${core}, but the evidence is weak.`
    : `Your ${pb} tends to be ${core}.`;
}

/** A short reading of a withholding reason. */
export function withheldText(w: WithheldReason): string {
  switch (w.reason) {
    case "insufficient_pairs":
      return `${w.have} days with both logged, ${w.needed} needed`;
    case "boolean_class_too_small":
      return `the yes/no side has only ${daysWord(w.have)} in its rarer answer, ${w.needed} needed`;
    case "too_few_levels":
      return `the scale side uses only ${w.have} distinct levels, ${w.needed} needed`;
    case "zero_variance":
      return "one side never changes";
  }
}

/** What a correlation's definition sentence describes. */
export interface CorrelationDefinitionOptions {
  a: Column;
  b: Column;
  lag: number;
  method: CorrelationMethod;
  detrend: Detrend;
}

/** One sentence stating exactly how the correlation was computed. */
export function correlationDefinition(
  { a, b, lag, method, detrend }: CorrelationDefinitionOptions,
): string {
  const coefficient = method === "spearman"
    ? "Spearman rank correlation (Pearson r of average ranks)"
    : "Pearson correlation";
  const shift = lag === 0 ? "d" : lag > 0 ? `d+${lag}` : `d${lag}`;
  const detrended = detrend === "weekday"
    ? " after subtracting from each series its mean for that weekday over the pairs,"
    : "";
  return `${coefficient} of ${a.key} on day d with ${b.key} on day ${shift}, over the days in ` +
    `range where both are logged (skips and missing days excluded, nothing imputed, booleans ` +
    `as 1/0),${detrended} with p from t = r·√((n−2)/(1−r²)) on n−2 df and a 95% CI by ` +
    `Fisher z; withheld below ${MIN_PAIRS} pairs, for a constant side, a yes/no side with under ` +
    `${MIN_BOOLEAN_CLASS} days in either answer, or a scale side with under ${MIN_SCALE_LEVELS} levels.`;
}
