/**
 * Factor effect (domain-anchors §3.3 "Factor effect"): the outcome on day d + lag, split by
 * whether day d was a factor day, compared by means, Hedges g and Mann–Whitney.
 */

import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { pointsIn } from "./_points.ts";
import { hedgesG, mannWhitney, mean, median } from "./stats.ts";

/** Days each group needs (stricter than Bearable's 3 + 3). */
export const MIN_GROUP_DAYS = 5;

/** Where a numeric factor's threshold came from. */
export type ThresholdSource = "argument" | "goal" | "median";

/** Unrounded factor effect; NaN where a figure cannot be computed. */
export interface FactorEffect {
  /** `null` for a yes/no factor (a factor day is a "yes"). */
  threshold: number | null;
  thresholdSource: ThresholdSource | null;
  withN: number;
  withMean: number;
  withoutN: number;
  withoutMean: number;
  g: number;
  p: number;
  withheld: { reason: "group_too_small" | "zero_variance"; needed: number; have: number } | null;
}

/** Whether a column is read as yes/no. */
export function isYesNo(column: Column): boolean {
  return column.type === "boolean";
}

/** What a factor-effect comparison reads. */
export interface FactorEffectOptions {
  record: MemberRecord;
  factor: Column;
  outcome: Column;
  lag: number;
  range: DayRange;
  threshold: number | null;
}

/**
 * Splits outcome days by factor days: factor day d (boolean true, or numeric ≥ threshold, the
 * threshold defaulting to the factor's numeric goal value, else the median of the factor on the
 * paired days) against outcome day d + lag; only days where both are logged and inside `range`.
 */
export function factorEffect(
  { record, factor, outcome, lag, range, threshold }: FactorEffectOptions,
): FactorEffect {
  const f = pointsIn(record, factor, { start: range.start, end: range.end - lag });
  const outcomeValues = record.values.get(outcome.key);
  const fx: number[] = [], oy: number[] = [];
  for (let i = 0; i < f.days.length; i++) {
    const v = outcomeValues?.get(f.days[i] + lag);
    if (v === undefined || v === "skip") continue;
    fx.push(f.values[i]);
    oy.push(typeof v === "boolean" ? (v ? 1 : 0) : v);
  }
  let cut: number | null = null, source: ThresholdSource | null = null;
  if (!isYesNo(factor)) {
    const goalValue = factor.goal?.op !== "true" ? factor.goal?.value : null;
    if (threshold !== null) [cut, source] = [threshold, "argument"];
    else if (goalValue !== null && goalValue !== undefined) [cut, source] = [goalValue, "goal"];
    else [cut, source] = [median(fx), "median"];
  }
  const withDays: number[] = [], withoutDays: number[] = [];
  for (let i = 0; i < fx.length; i++) {
    const isFactorDay = cut === null ? fx[i] === 1 : fx[i] >= cut;
    (isFactorDay ? withDays : withoutDays).push(oy[i]);
  }
  const base = {
    // a median of no values is NaN; report no threshold rather than a non-number
    threshold: cut !== null && Number.isFinite(cut) ? cut : null,
    thresholdSource: cut !== null && Number.isFinite(cut) ? source : null,
    withN: withDays.length,
    withMean: mean(withDays),
    withoutN: withoutDays.length,
    withoutMean: mean(withoutDays),
  };
  const smaller = Math.min(withDays.length, withoutDays.length);
  if (smaller < MIN_GROUP_DAYS) {
    return {
      ...base,
      g: NaN,
      p: NaN,
      withheld: { reason: "group_too_small", needed: MIN_GROUP_DAYS, have: smaller },
    };
  }
  const g = hedgesG(withDays, withoutDays);
  if (Number.isNaN(g)) {
    return { ...base, g, p: NaN, withheld: { reason: "zero_variance", needed: 2, have: 1 } };
  }
  return { ...base, g, p: mannWhitney(withDays, withoutDays).p, withheld: null };
}

/** Cohen's bands for |g|: < 0.2 negligible, < 0.5 small, < 0.8 medium, else large. */
export function effectLabel(g: number): "negligible" | "small" | "medium" | "large" {
  const m = Math.abs(g);
  return m < 0.2 ? "negligible" : m < 0.5 ? "small" : m < 0.8 ? "medium" : "large";
}
