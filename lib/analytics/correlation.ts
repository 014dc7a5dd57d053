/**
 * Lagged correlation between two columns (domain-anchors §3.3 "Correlation"): value of A on day d
 * paired with B on day d + lag, only where both are logged, with the withholding rules. Shared by
 * `get_correlation` and `find_correlations`; this is the benchmarked hot path, so values go
 * through preallocated typed arrays and nothing is formatted here.
 */

import type { DayNumber } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import {
  type AdjustedCorrelation,
  adjustedCorrelation,
  type AppliedAdjustment,
  AR1_MODEL_BELOW_PAIRS,
  confidenceFromQ,
  MAX_AR1,
  MIN_AR1_PAIRS,
  MIN_EFFECTIVE_PAIRS,
} from "./adjust.ts";
import { daysWord, moreOf, phraseOf } from "./_wording.ts";
import { circularMean, clockDifference, isClock } from "./circular.ts";

/** Which correlation coefficient. */
export type CorrelationMethod = "spearman" | "pearson";

/**
 * What is removed from each series before correlating (statistics.md §3): `weekday_trend` (the
 * default of the tools) removes weekday means and a linear trend; `weekday` only the weekday
 * means; `none` nothing. Short series fall back to a weekend/working-day split (adjust.ts).
 */
export type Detrend = "weekday_trend" | "weekday" | "none";

/** |r| bands of domain-anchors §3.3. */
export type Strength = "negligible" | "weak" | "moderate" | "strong";

/** Evidence bands of domain-anchors §3.3. */
export type Confidence = "high" | "medium" | "low";

/** Why a correlation was not computed, with the threshold and what the data had. */
export interface WithheldReason {
  reason:
    | "insufficient_pairs"
    | "insufficient_effective_pairs"
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

/**
 * The computed (unrounded) correlation of one pair of columns at one lag: the adjusted
 * correlation (r, n, n_eff, the adjustment, p and CI — NaN when withheld) plus the pairing facts.
 */
export interface Correlation extends AdjustedCorrelation {
  /** Day of A in the earliest pair (null when there are no pairs). */
  firstA: DayNumber | null;
  /** Days in the range on which A / B have a value (skip and missing excluded). */
  daysWithA: number;
  daysWithB: number;
  withheld: WithheldReason | null;
}

// Scratch buffers reused by every call: the work is synchronous, so no two calls overlap.
const scratch = {
  a: new Float64Array(366),
  b: new Float64Array(366),
  pairA: new Float64Array(366),
  pairB: new Float64Array(366),
  pairDayA: new Int32Array(366),
};

/**
 * Grows the scratch buffers to hold `span` days: the tools cap a call at 366 days, but the coach
 * correlates a paid member's whole history, and a typed-array write past the end is silently
 * dropped.
 */
function ensureScratch(span: number) {
  if (scratch.a.length >= span) return;
  scratch.a = new Float64Array(span);
  scratch.b = new Float64Array(span);
  scratch.pairA = new Float64Array(span);
  scratch.pairB = new Float64Array(span);
  scratch.pairDayA = new Int32Array(span);
}

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
  if (isClock(column)) unwrapDays(out, span, count);
  return count;
}

/**
 * Unwraps the logged times of day among the first `span` slots of `out` (NaN = none) around
 * their circular mean, in place (circular.ts): a bedtime of 00:30 correlates as 24:30.
 */
function unwrapDays(out: Float64Array, span: number, count: number): void {
  const logged = new Float64Array(count);
  let k = 0;
  for (let i = 0; i < span; i++) if (!Number.isNaN(out[i])) logged[k++] = out[i];
  const center = circularMean(logged);
  if (Number.isNaN(center)) return;
  for (let i = 0; i < span; i++) {
    if (!Number.isNaN(out[i])) out[i] = center + clockDifference(out[i], center);
  }
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
  /** What is removed first; the tools default to `weekday_trend`. */
  detrend: Detrend;
}

/**
 * Correlates A on day d with B on day d + `lag` for every d with both days inside `range` and
 * both values logged, after removing what `detrend` asks for from each side (over the pairs, so
 * the result is the partial correlation given weekday and time), with p and the 95 % interval on
 * the effective number of pairs (statistics.md §1, §3). Withholds (r = NaN, `withheld` set) below
 * 14 pairs or 14 effective pairs, with a boolean side under 5 days in either class, a scale side
 * under 3 levels, or a side that is constant (before or after the adjustment).
 */
export function correlate(
  { record, a, b, lag, range, method, detrend }: CorrelateOptions,
): Correlation {
  const { n, daysWithA, daysWithB } = pairUp(record, { a, b, lag, range });
  const { pairA, pairB, pairDayA } = scratch;
  const base = { n, firstA: n > 0 ? pairDayA[0] : null, daysWithA, daysWithB };
  const blank = { r: NaN, p: NaN, ciLow: NaN, ciHigh: NaN, nEff: NaN };
  const none = { applied: "none" as AppliedAdjustment, nuisance: 0 };
  const withheld: WithheldReason | null = n < MIN_PAIRS
    ? { reason: "insufficient_pairs", needed: MIN_PAIRS, have: n }
    : sideWithheld(a, pairA, n) ?? sideWithheld(b, pairB, n);
  if (withheld) return { ...base, ...blank, ...none, withheld };
  const c = adjustedCorrelation({
    days: pairDayA.subarray(0, n),
    x: pairA.subarray(0, n),
    y: pairB.subarray(0, n),
    lag,
    request: detrend,
    method,
  });
  const adjusted = { applied: c.applied, nuisance: c.nuisance, nEff: c.nEff };
  if (Number.isNaN(c.r)) {
    // all variation was the weekday pattern or the trend
    const reason = { reason: "zero_variance" as const, needed: 2, have: 1 };
    return { ...base, ...blank, ...adjusted, withheld: reason };
  }
  if (!(c.nEff - c.nuisance >= MIN_EFFECTIVE_PAIRS)) {
    // statistics.md §1: an autocorrelated series carries fewer independent days than it has;
    // the adjustment's nuisance terms spend some more (NaN: too few consecutive days to tell)
    const have = Number.isNaN(c.nEff) ? 0 : Math.max(0, Math.floor(c.nEff - c.nuisance));
    const reason = { reason: "insufficient_effective_pairs" as const, needed: MIN_EFFECTIVE_PAIRS };
    return { ...base, ...blank, ...adjusted, withheld: { ...reason, have } };
  }
  return { ...base, ...adjusted, r: c.r, p: c.p, ciLow: c.ciLow, ciHigh: c.ciHigh, withheld: null };
}

/** Fills the scratch pairs with the logged pairs; returns how many and each side's days. */
function pairUp(
  record: MemberRecord,
  o: { a: Column; b: Column; lag: number; range: DayRange },
): { n: number; daysWithA: number; daysWithB: number } {
  const span = o.range.end - o.range.start + 1;
  ensureScratch(span);
  const { a: scratchA, b: scratchB, pairA, pairB, pairDayA } = scratch;
  const daysWithA = readDays({ record, column: o.a, range: o.range, out: scratchA });
  const daysWithB = readDays({ record, column: o.b, range: o.range, out: scratchB });
  // offset i of A pairs with offset i + lag of B; both must fall inside the range
  const from = Math.max(0, -o.lag), to = Math.min(span, span - o.lag);
  let n = 0;
  for (let i = from; i < to; i++) {
    const va = scratchA[i], vb = scratchB[i + o.lag];
    if (va === va && vb === vb) { // NaN ≠ NaN: both present
      pairA[n] = va;
      pairB[n] = vb;
      pairDayA[n] = o.range.start + i;
      n++;
    }
  }
  return { n, daysWithA, daysWithB };
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

/**
 * Confidence word from the false-discovery q (statistics.md §4; for a single test q = p): high if
 * q ≤ 0.01 and n_eff ≥ 30, medium if q ≤ 0.05, else low.
 */
export function confidenceOf(q: number, nEff: number): Confidence {
  return confidenceFromQ(q, nEff);
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

/** What the correlation sentence describes; `c.confidence` comes from q (or p for one test). */
export interface CorrelationSentenceOptions {
  a: Column;
  b: Column;
  lag: number;
  c: Pick<Correlation, "r" | "withheld"> & { confidence: Confidence | null };
}

/**
 * A second-person sentence (Exist style), e.g. "You tend to have higher mood on days after
 * more sleep hours." B is what varies; A, lagged, is the condition.
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
  // "you" is the subject, so no verb has to agree with a label ("Your steps tends" read wrong)
  if (strength === "negligible") {
    return `No meaningful link between your ${pb} and your ${pa} (${pb} measured ${when}).`;
  }
  const higher = c.r > 0 ? "higher" : "lower";
  const degree = strength === "weak" ? "slightly " : "";
  const core = `${degree}${higher} ${pb} ${timing(lag)} ${sidePhrase(a, true)}`;
  return c.confidence === "low"
    ? `You may have ${core}, but the evidence is weak.`
    : `You tend to have ${core}.`;
}

/** A short reading of a withholding reason. */
export function withheldText(w: WithheldReason): string {
  switch (w.reason) {
    case "insufficient_pairs":
      return `${w.have} days with both logged, ${w.needed} needed`;
    case "insufficient_effective_pairs":
      return `the days are so alike from one day to the next that they count as about ` +
        `${w.have} independent days after the weekday and trend adjustment, ${w.needed} needed`;
    case "boolean_class_too_small":
      return `the yes/no side has only ${daysWord(w.have)} in its rarer answer, ${w.needed} needed`;
    case "too_few_levels":
      return `the scale side uses only ${w.have} distinct levels, ${w.needed} needed`;
    case "zero_variance":
      return "one side never changes";
  }
}

/** How each detrend choice reads inside a definition. */
const DETREND_TEXT: Record<Detrend, string> = {
  weekday_trend: " after removing from each series, over the pairs, its weekday means and a " +
    "linear trend (least-squares residuals on one indicator per logged weekday and the day " +
    "index, k = the number of logged weekdays − 1 + 1, so 7 for a daily series; with under 4 " +
    "values on some logged weekday a weekend/working-day indicator and the trend, k = 2),",
  weekday: " after subtracting from each series its mean for that weekday over the pairs (k = " +
    "logged weekdays − 1; a weekend/working-day split, k = 1, with under 4 values on some " +
    "weekday),",
  none: "",
};

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
  return `${coefficient} of ${a.key} on day d with ${b.key} on day ${shift}, over the days in ` +
    `range where both are logged (skips and missing days excluded, nothing imputed, booleans ` +
    `as 1/0),${DETREND_TEXT[detrend]} with p from t = r·√(df/(1−r²)), df = n_eff − 2 − k, and ` +
    `a 95% CI by Fisher z on n_eff − 3 − k, where n_eff = n / (1 + 2 Σ_{j≤K} (1 − j/n)·ρa(j)·ρb(j)) ` +
    `is the effective number of pairs given the autocorrelation of both adjusted series ` +
    `(Bartlett; K = min(14, n/5) lags, a lag counting only where both |ρ| exceed 1.96/√n; ` +
    `clamped to n; for Spearman on the ranks, an approximation); under ` +
    `${AR1_MODEL_BELOW_PAIRS} pairs n_eff is the smaller of that and the AR(1) count ` +
    `n² / Σ_{i,j} (φa·φb)^|d_i−d_j| over the pairs' days d, each φ the lag-1 autocorrelation r1 ` +
    `of that adjusted series over pairs of consecutive days (successive values up to 7 days ` +
    `apart, φ = r1^(1/mean gap), when fewer than ${MIN_AR1_PAIRS}), bias-corrected by solving ` +
    `φ = r1 + (2 + 4φ)/n and clamped to [0, ${MAX_AR1}] (the screened sum alone is too liberal ` +
    `at 14–30 days); withheld ` +
    `below ${MIN_PAIRS} pairs or ${MIN_EFFECTIVE_PAIRS} effective pairs after k, for a constant ` +
    `side, a yes/no side with under ${MIN_BOOLEAN_CLASS} days in either answer, or a scale side ` +
    `with under ${MIN_SCALE_LEVELS} levels. Confidence comes from q (= p for one test): high ` +
    `q ≤ 0.01 with n_eff ≥ 30, medium q ≤ 0.05, else low.`;
}
