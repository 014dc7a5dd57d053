/** `get_factor_effect`: outcome on days with vs without a factor (domain-anchors §3.2 #15). */

import { z } from "zod";
import { envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import {
  effectLabel,
  type FactorEffect,
  factorEffect,
  isYesNo,
  MIN_GROUP_DAYS,
} from "../analytics/factor_effect.ts";
import { type AppliedAdjustment, reportP } from "../analytics/adjust.ts";
import { clockLevel, isClock, withClockDefinition } from "../analytics/circular.ts";
import { adjustmentsReport } from "../analytics/adjustment_report.ts";
import type { Detrend } from "../analytics/correlation.ts";
import { daysWord, phraseOf, roundOrNull } from "../analytics/_wording.ts";
import type { Column } from "../record/types.ts";
import { AppError } from "../foundation/errors.ts";
import { defineTool } from "./define_tool.ts";
import {
  Adjustments,
  Days,
  DetrendArg,
  EnvelopeFields,
  Logging,
  loggingOut,
  MetricName,
  PValue,
  RangeArgs,
  Withheld,
} from "./schemas.ts";
import { loggingPattern } from "../analytics/logging_pattern.ts";

const DEFAULT_DAYS = 180;

const Input = z.object({
  factor: MetricName.meta({
    description: "The habit or event (yes/no or numeric).",
  }),
  outcome: MetricName.meta({ description: "The metric it may affect." }),
  lag_days: z.int().min(0).max(3).default(0).meta({
    description: "Compare the outcome this many days after the factor day.",
  }),
  days: Days(DEFAULT_DAYS),
  ...RangeArgs,
  threshold: z.number().nullable().default(null).meta({
    description:
      "Numeric factor: days with a value ≥ threshold (default: the goal value, unless under " +
      "20% of days fall on one side; else the most even split).",
  }),
  detrend: DetrendArg,
}).strict();

const Group = z.object({ mean: z.number().nullable(), n: z.int() });

const Output = z.object({
  ...EnvelopeFields,
  factor: z.string(),
  outcome: z.string(),
  unit: z.string().nullable(),
  lag_days: z.int(),
  factor_rule: z.string(),
  threshold: z.number().nullable(),
  // "median" is kept in the enum so the published type only widens (versioning.md); the
  // balanced cut replaced it in #12 and it is no longer produced
  threshold_source: z.enum(["argument", "goal", "balanced", "median"]).nullable(),
  split_note: z.string().nullable(),
  detrend: z.enum(["weekday_trend", "weekday", "none"]),
  adjustments: Adjustments,
  with: Group,
  without: Group,
  difference: z.number().nullable(),
  difference_pct: z.number().nullable(),
  adjusted_difference: z.number().nullable(),
  n_eff: z.number().nullable(),
  effect_size_g: z.number().nullable(),
  effect_size_label: z.enum(["negligible", "small", "medium", "large"]).nullable(),
  p_value: PValue.nullable(),
  p_text: z.string(),
  sentence: z.string(),
  caveat: z.string(),
  logging: Logging,
  withheld: Withheld.optional(),
});

/** "workout = yes" / "steps ≥ 8000" — what counts as a factor day. */
function ruleOf(factor: Column, e: FactorEffect): string {
  if (isYesNo(factor)) return `${factor.key} = yes`;
  return e.threshold === null
    ? `${factor.key} ≥ a cut (fewer than two distinct values yet)`
    : `${factor.key} ≥ ${e.threshold}`;
}

/** "= 0.04" or "< 0.001" inside a sentence. */
function pText(p: number): string {
  const r = reportP(p);
  return r.text.startsWith("<") ? r.text : `= ${r.text}`;
}

/** What an adjustment took out, inside a sentence. */
const TAKEN_OUT: Record<AppliedAdjustment, string> = {
  weekday_trend: "weekday rhythm and trend",
  weekend_trend: "weekend rhythm and trend",
  trend: "trend",
  weekday: "weekday rhythm",
  weekend: "weekend rhythm",
  none: "",
};

/** What the plain-language sentence says. */
interface SentenceOfOptions {
  factor: Column;
  outcome: Column;
  lag: number;
  e: FactorEffect;
}

/** The second-person reading of the result. */
function sentenceOf({ factor, outcome, lag, e }: SentenceOfOptions): string {
  const pf = phraseOf(factor), po = phraseOf(outcome);
  const days = isYesNo(factor) ? `with ${pf}` : `with ${pf} ≥ ${e.threshold}`;
  const when = lag === 0 ? `On days ${days}` : `${daysWord(lag)} after days ${days}`;
  if (e.withheld) {
    return e.withheld.reason === "group_too_small"
      ? `There is not enough data to compare your ${po} on days with and without ${pf}: the ` +
        `smaller group has ${daysWord(e.withheld.have)}, ${e.withheld.needed} needed.`
      : `Your ${po} did not vary on these days, so there is nothing to compare.`;
  }
  const unit = outcome.unit ? ` ${outcome.unit}` : "";
  const signed = (x: number) => `${x >= 0 ? "+" : "−"}${roundOrNull(Math.abs(x))}${unit}`;
  const chance = e.p < 0.05 ? "" : ", which could be chance";
  const size = `${effectLabel(e.g)} effect, p ${pText(e.p)}${chance}`;
  const raw =
    `${when} your ${po} averaged ${roundOrNull(clockLevel(outcome, e.withMean))}${unit}, against ` +
    `${roundOrNull(clockLevel(outcome, e.withoutMean))}${unit} otherwise (${
      signed(e.withMean - e.withoutMean)
    }`;
  if (e.applied === "none") return `${raw}; ${size}).`;
  return `${raw}). With your ${TAKEN_OUT[e.applied]} taken into account the difference is ` +
    `${signed(e.adjustedDifference)} (${size}).`;
}

/** What the definition sentence describes. */
interface DefinitionOfOptions {
  factor: Column;
  outcome: Column;
  lag: number;
  detrend: Detrend;
}

/** The method in one sentence. */
function definitionOf({ factor, outcome, lag, detrend }: DefinitionOfOptions): string {
  const split = isYesNo(factor)
    ? `a factor day is a day ${factor.key} is yes`
    : `a factor day has ${factor.key} ≥ the threshold (the argument, else the goal value unless ` +
      `it leaves under 20% or 10 of the days on one side, else the observed level that makes ` +
      `the smaller group largest; split_note says why)`;
  const adjusted = detrend === "none"
    ? "the outcome as logged"
    : `the outcome with its ${
      detrend === "weekday" ? "weekday means" : "weekday means and linear trend"
    } ` +
      `removed over the compared days (least-squares residuals; a weekend/working-day split ` +
      `when some weekday has under 4 values)`;
  return `${outcome.key} on day d+${lag} compared between factor and other days d, where ` +
    `${split}, over days in range with both logged (skips and missing excluded); with/without ` +
    `means and difference are as logged; adjusted_difference, Hedges g (exact small-sample ` +
    `correction) and the two-sided Mann–Whitney U (normal approximation, tie and continuity ` +
    `corrected) use ${adjusted}, with z scaled by √(n_eff/n) for autocorrelated days (an ` +
    `approximation; n_eff from the autocorrelation of the factor indicator and the outcome); ` +
    `withheld unless each group has ≥ ${MIN_GROUP_DAYS} days.`;
}

/** The `get_factor_effect` tool. */
export const getFactorEffect = defineTool({
  name: "get_factor_effect",
  title: "Effect of a factor on an outcome",
  description:
    "The outcome's average on factor days (a yes, or a value ≥ threshold) vs other days, " +
    "optionally 1–3 days later: Hedges g and Mann–Whitney p after removing weekday rhythm and " +
    "trend (default), on effective days. Withheld unless each group has ≥ 5 days.",
  input: Input,
  output: Output,
  run(record, args) {
    const factor = findColumn(record, args.factor);
    const outcome = findColumn(record, args.outcome);
    if (factor.key === outcome.key && args.lag_days === 0) {
      throw new AppError(
        "invalid_request",
        "Factor and outcome are the same metric on the same day.",
      );
    }
    const range = resolveWindow(record, args, DEFAULT_DAYS);
    const lag = args.lag_days;
    const e = factorEffect({
      record,
      factor,
      outcome,
      lag,
      range,
      threshold: args.threshold,
      detrend: args.detrend,
    });
    const shown = e.withheld === null;
    const diff = e.withMean - e.withoutMean;
    const p = reportP(shown ? e.p : NaN);
    return {
      ...envelope(
        record,
        range,
        withClockDefinition(outcome, definitionOf({ factor, outcome, lag, detrend: args.detrend })),
      ),
      factor: factor.key,
      outcome: outcome.key,
      unit: outcome.unit,
      lag_days: lag,
      factor_rule: ruleOf(factor, e),
      threshold: e.threshold,
      threshold_source: e.thresholdSource,
      split_note: e.splitNote,
      detrend: args.detrend,
      adjustments: adjustmentsReport({
        detrend: args.detrend,
        applied: shown ? [e.applied] : [],
        testsRun: shown ? 1 : 0,
        multipleTesting: false,
      }),
      with: { mean: roundOrNull(clockLevel(outcome, e.withMean)), n: e.withN },
      without: { mean: roundOrNull(clockLevel(outcome, e.withoutMean)), n: e.withoutN },
      difference: shown ? roundOrNull(diff) : null,
      // a percentage of a clock time means nothing (00:00 is not zero of anything)
      difference_pct: shown && e.withoutMean !== 0 && !isClock(outcome)
        ? roundOrNull((diff / Math.abs(e.withoutMean)) * 100, 1)
        : null,
      adjusted_difference: shown ? roundOrNull(e.adjustedDifference) : null,
      n_eff: shown ? roundOrNull(e.nEff, 1) : null,
      effect_size_g: shown ? roundOrNull(e.g, 2) : null,
      effect_size_label: shown ? effectLabel(e.g) : null,
      p_value: p.value,
      p_text: p.text,
      sentence: sentenceOf({ factor, outcome, lag, e }),
      caveat: "Association, not causation: days with the factor may differ in other ways " +
        "(other habits, illness, travel) that also move the outcome; the weekday rhythm and " +
        "trend are taken out only when detrend says so.",
      logging: loggingOut(loggingPattern(record, [
        { column: factor, range },
        { column: outcome, range },
      ])),
      ...(e.withheld ? { withheld: e.withheld } : {}),
    };
  },
});
