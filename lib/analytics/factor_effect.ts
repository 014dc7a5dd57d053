/**
 * Factor effect (domain-anchors §3.3 "Factor effect", statistics.md §5): the outcome on day
 * d + lag, split by whether day d was a factor day, compared by means, Hedges g and Mann–Whitney —
 * by default on the outcome with its weekday means and trend removed, so a factor that happens on
 * weekends does not inherit the weekend mood, and with the Mann–Whitney z shrunk to the effective
 * number of days.
 */

import type { Column, MemberRecord } from "../record/types.ts";
import {
  autocorrelations,
  chooseAdjustment,
  effectiveSampleSize,
  effectiveSizeLags,
  residualize,
} from "./adjust.ts";
import type { AppliedAdjustment } from "./adjust.ts";
import type { DayRange } from "./common.ts";
import type { Detrend } from "./correlation.ts";
import { pointsIn } from "./_points.ts";
import { isClock, levelMean, unwrapClock } from "./circular.ts";
import { hedgesG, mannWhitney, mean, median, normalTwoSidedP } from "./stats.ts";

/** Days each group needs (stricter than Bearable's 3 + 3). */
export const MIN_GROUP_DAYS = 5;
/** Below this share of days in the smaller group a split is called unbalanced (statistics.md §5). */
export const BALANCED_SHARE = 0.2;

/** Where a numeric factor's threshold came from. */
export type ThresholdSource = "argument" | "goal" | "balanced";

/** Unrounded factor effect; NaN where a figure cannot be computed. */
export interface FactorEffect {
  /** `null` for a yes/no factor (a factor day is a "yes"). */
  threshold: number | null;
  thresholdSource: ThresholdSource | null;
  /** Why the split is what it is, when it is not the obvious one (else null). */
  splitNote: string | null;
  withN: number;
  withMean: number;
  withoutN: number;
  withoutMean: number;
  /** with − without on the adjusted outcome (= the raw difference when nothing is removed). */
  adjustedDifference: number;
  /** Hedges g on the adjusted outcome. */
  g: number;
  /** Two-sided Mann–Whitney p on the adjusted outcome, z scaled by √(n_eff/n). */
  p: number;
  nEff: number;
  applied: AppliedAdjustment;
  withheld: { reason: "group_too_small" | "zero_variance"; needed: number; have: number } | null;
}

/** What a factor-effect comparison reads. */
export interface FactorEffectOptions {
  record: MemberRecord;
  factor: Column;
  outcome: Column;
  lag: number;
  range: DayRange;
  /** Numeric factors: a factor day has a value ≥ this (null: goal, else the balanced cut). */
  threshold: number | null;
  detrend: Detrend;
}

/** Whether a column is read as yes/no. */
export function isYesNo(column: Column): boolean {
  return column.type === "boolean";
}

/** Factor day d and outcome day d + lag, both logged, as parallel arrays. */
function pairDays(o: FactorEffectOptions) {
  const record = o.record;
  const f = pointsIn(record, o.factor, { start: o.range.start, end: o.range.end - o.lag });
  const outcomeValues = record.values.get(o.outcome.key);
  const days: number[] = [], fx: number[] = [], oy: number[] = [];
  for (let i = 0; i < f.days.length; i++) {
    const v = outcomeValues?.get(f.days[i] + o.lag);
    if (v === undefined || v === "skip") continue;
    days.push(f.days[i]);
    fx.push(f.values[i]);
    oy.push(typeof v === "boolean" ? (v ? 1 : 0) : v);
  }
  // a time-of-day outcome is unwrapped around its circular mean (circular.ts)
  return { days, fx, oy: isClock(o.outcome) ? Array.from(unwrapClock(oy)) : oy };
}

/** Days on each side of "value ≥ cut". */
function sidesOf(fx: number[], cut: number): [number, number] {
  let above = 0;
  for (const v of fx) if (v >= cut) above++;
  return [above, fx.length - above];
}

/**
 * The observed level c for which "value ≥ c" makes the smaller group largest (closest to 50/50);
 * ties go to the lower cut. A median split puts every day tied at the median on one side — on a
 * 1–5 scale that can leave 17 of 162 days on the other (statistics.md §5). NaN with under two
 * distinct values.
 */
export function balancedCut(fx: number[]): number {
  const levels = [...new Set(fx)].sort((a, b) => a - b);
  let best = NaN, bestSmaller = -1;
  for (const c of levels.slice(1)) {
    const smaller = Math.min(...sidesOf(fx, c));
    if (smaller > bestSmaller) [best, bestSmaller] = [c, smaller];
  }
  return best;
}

/** The threshold, where it came from, and a note saying why when it is not the obvious one. */
function chooseCut(o: FactorEffectOptions, fx: number[]) {
  if (isYesNo(o.factor)) return { cut: null, source: null, note: null };
  if (o.threshold !== null) return { cut: o.threshold, source: "argument" as const, note: null };
  const sides = (c: number) => sidesOf(fx, c).join(" vs ");
  const lopsided = (c: number) => {
    const smaller = Math.min(...sidesOf(fx, c));
    return smaller < 10 || smaller < BALANCED_SHARE * fx.length;
  };
  const goal = o.factor.goal?.op !== "true" ? o.factor.goal?.value ?? null : null;
  if (goal !== null && !lopsided(goal)) return { cut: goal, source: "goal" as const, note: null };
  const cut = balancedCut(fx);
  if (Number.isNaN(cut)) return { cut, source: "balanced" as const, note: null };
  const notes = [
    `Split at ${cut}, the observed level that divides the days most evenly (${sides(cut)} days).`,
  ];
  const m = median(fx);
  if (goal !== null) {
    notes.push(`The goal (≥ ${goal}) would have given ${sides(goal)} days.`);
  } else if (lopsided(m)) {
    notes.push(
      `A median split (≥ ${m}) would have given ${sides(m)} days: many days share that value.`,
    );
  }
  if (lopsided(cut)) notes.push("Even so the groups are unbalanced: most days share one value.");
  return { cut, source: "balanced" as const, note: notes.join(" ") };
}

/**
 * Splits outcome days by factor days: factor day d (boolean true, or numeric ≥ threshold — the
 * argument, else the factor's goal value unless it leaves under 20 % or 10 days on one side, else
 * the balanced cut) against outcome day d + lag; only days where both are logged and inside
 * `range`. The outcome has `detrend` removed (over the compared days) before g and p.
 */
export function factorEffect(o: FactorEffectOptions): FactorEffect {
  const { days, fx, oy } = pairDays(o);
  const { cut, source, note } = chooseCut(o, fx);
  const isFactorDay = fx.map((v) => (cut === null ? v === 1 : v >= cut));
  const outcomeDays = days.map((d) => d + o.lag);
  const applied = chooseAdjustment(outcomeDays, o.detrend);
  const adjusted = residualize(outcomeDays, oy, applied);
  const split = (xs: ArrayLike<number>) => {
    const w: number[] = [], wo: number[] = [];
    for (let i = 0; i < xs.length; i++) (isFactorDay[i] ? w : wo).push(xs[i]);
    return [w, wo];
  };
  const [withRaw, withoutRaw] = split(oy);
  const [withAdj, withoutAdj] = split(adjusted);
  const finiteCut = cut !== null && Number.isFinite(cut);
  const base = {
    threshold: finiteCut ? cut : null,
    thresholdSource: finiteCut ? source : null,
    splitNote: note,
    withN: withRaw.length,
    withMean: levelMean(o.outcome, withRaw),
    withoutN: withoutRaw.length,
    withoutMean: levelMean(o.outcome, withoutRaw),
    applied,
  };
  const blank = { adjustedDifference: NaN, g: NaN, p: NaN, nEff: NaN };
  const smaller = Math.min(withRaw.length, withoutRaw.length);
  if (smaller < MIN_GROUP_DAYS) {
    const withheld = { reason: "group_too_small" as const, needed: MIN_GROUP_DAYS, have: smaller };
    return { ...base, ...blank, withheld };
  }
  const g = hedgesG(withAdj, withoutAdj);
  if (Number.isNaN(g)) {
    return { ...base, ...blank, withheld: { reason: "zero_variance", needed: 2, have: 1 } };
  }
  // statistics.md §5: autocorrelated days carry less information; scale z by √(n_eff/n)
  // (an approximation, said in the definition)
  const n = days.length, lags = effectiveSizeLags(n);
  const indicator = isFactorDay.map((b) => (b ? 1 : 0));
  const nEff = effectiveSampleSize(
    n,
    autocorrelations(days, indicator, lags),
    autocorrelations(days, adjusted, lags),
  );
  const z = mannWhitney(withAdj, withoutAdj).z * Math.sqrt(nEff / n);
  const adjustedDifference = mean(withAdj) - mean(withoutAdj);
  return { ...base, adjustedDifference, g, p: normalTwoSidedP(z), nEff, withheld: null };
}

/** Cohen's bands for |g|: < 0.2 negligible, < 0.5 small, < 0.8 medium, else large. */
export function effectLabel(g: number): "negligible" | "small" | "medium" | "large" {
  const m = Math.abs(g);
  return m < 0.2 ? "negligible" : m < 0.5 ? "small" : m < 0.8 ? "medium" : "large";
}
