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
import { daysWord, phraseOf, roundOrNull, roundSig } from "../analytics/_wording.ts";
import type { Column } from "../record/types.ts";
import { AppError } from "../foundation/errors.ts";
import { defineTool } from "./define_tool.ts";
import { Days, EnvelopeFields, MetricName, RangeArgs, Withheld } from "./schemas.ts";

const DEFAULT_DAYS = 180;

const Input = z.object({
  factor: MetricName.meta({
    description: 'The habit or event (column key), e.g. "workout"; yes/no or numeric.',
  }),
  outcome: MetricName.meta({ description: 'The metric it may affect (column key), e.g. "mood".' }),
  lag_days: z.int().min(0).max(3).default(0).meta({
    description: "Compare the outcome this many days after the factor day (0–3, default 0).",
  }),
  days: Days(DEFAULT_DAYS),
  ...RangeArgs,
  threshold: z.number().nullable().default(null).meta({
    description:
      "For a numeric factor: a factor day has a value ≥ threshold (default: the factor's goal value, else its median).",
  }),
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
  threshold_source: z.enum(["argument", "goal", "median"]).nullable(),
  with: Group,
  without: Group,
  difference: z.number().nullable(),
  difference_pct: z.number().nullable(),
  effect_size_g: z.number().nullable(),
  effect_size_label: z.enum(["negligible", "small", "medium", "large"]).nullable(),
  p_value: z.number().min(0).max(1).nullable(),
  sentence: z.string(),
  caveat: z.string(),
  withheld: Withheld.optional(),
});

/** "workout = yes" / "steps ≥ 8000" — what counts as a factor day. */
function ruleOf(factor: Column, e: FactorEffect): string {
  if (isYesNo(factor)) return `${factor.key} = yes`;
  return e.threshold === null
    ? `${factor.key} ≥ its median (no values yet)`
    : `${factor.key} ≥ ${e.threshold}`;
}

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
  const diff = e.withMean - e.withoutMean;
  const sign = diff >= 0 ? "+" : "−";
  const chance = e.p < 0.05 ? "" : ", which could be chance";
  return `${when} your ${po} averaged ${roundOrNull(e.withMean)}${unit}, against ` +
    `${roundOrNull(e.withoutMean)}${unit} otherwise (${sign}${roundOrNull(Math.abs(diff))}; ` +
    `${effectLabel(e.g)} effect, p = ${roundSig(e.p, 2)}${chance}).`;
}

/** The `get_factor_effect` tool. */
export const getFactorEffect = defineTool({
  name: "get_factor_effect",
  title: "Effect of a factor on an outcome",
  description:
    "Bearable-style: the outcome's average on days with the factor (a yes, or a value above a " +
    "threshold) against days without, optionally 1–3 days later, with Hedges g and a " +
    "Mann–Whitney p. Withheld unless each group has at least 5 days.",
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
    const e = factorEffect({ record, factor, outcome, lag, range, threshold: args.threshold });
    const shown = e.withheld === null;
    const diff = e.withMean - e.withoutMean;
    const split = isYesNo(factor)
      ? `a factor day is a day ${factor.key} is yes`
      : `a factor day has ${factor.key} ≥ the threshold (argument, else the goal value, else ` +
        `the median on the compared days)`;
    const definition = `${outcome.key} on day d+${lag} compared between factor and other days ` +
      `d, where ${split}, over days in range with both logged (skips and missing excluded); ` +
      `difference = with − without; Hedges g with the exact small-sample correction; ` +
      `two-sided Mann–Whitney U (normal approximation, tie and continuity corrected); withheld ` +
      `unless each group has ≥ ${MIN_GROUP_DAYS} days.`;
    return {
      ...envelope(record, range, definition),
      factor: factor.key,
      outcome: outcome.key,
      unit: outcome.unit,
      lag_days: lag,
      factor_rule: ruleOf(factor, e),
      threshold: e.threshold,
      threshold_source: e.thresholdSource,
      with: { mean: roundOrNull(e.withMean), n: e.withN },
      without: { mean: roundOrNull(e.withoutMean), n: e.withoutN },
      difference: shown ? roundOrNull(diff) : null,
      difference_pct: shown && e.withoutMean !== 0
        ? roundOrNull((diff / Math.abs(e.withoutMean)) * 100, 1)
        : null,
      effect_size_g: shown ? roundOrNull(e.g, 3) : null,
      effect_size_label: shown ? effectLabel(e.g) : null,
      p_value: shown ? roundSig(e.p) : null,
      sentence: sentenceOf({ factor, outcome, lag, e }),
      caveat: "Association, not causation: days with the factor may differ in other ways " +
        "(weekday, other habits) that also move the outcome.",
      ...(e.withheld ? { withheld: e.withheld } : {}),
    };
  },
});
