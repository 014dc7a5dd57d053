/** `find_correlations`: screen one metric against all others (domain-anchors §3.2 #14). */

import { z } from "zod";
import { envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import {
  confidenceOf,
  correlationSentence,
  type Detrend,
  directionOf,
  MIN_BOOLEAN_CLASS,
  MIN_PAIRS,
  MIN_SCALE_LEVELS,
  strengthOf,
} from "../analytics/correlation.ts";
import { Q_THRESHOLD, screenCorrelations } from "../analytics/correlation_screen.ts";
import { reportP } from "../analytics/adjust.ts";
import { adjustmentsReport } from "../analytics/adjustment_report.ts";
import { roundOrNull } from "../analytics/_wording.ts";
import { defineTool } from "./define_tool.ts";
import {
  Adjustments,
  AppliedAdjustmentSchema,
  Days,
  DetrendArg,
  EnvelopeFields,
  MetricName,
  PValue,
  RangeArgs,
} from "./schemas.ts";

const DEFAULT_DAYS = 180;

const Input = z.object({
  metric: MetricName.meta({
    description: 'The metric to explain (column key), e.g. "mood".',
  }),
  days: Days(DEFAULT_DAYS),
  ...RangeArgs,
  max_lag: z.int().min(0).max(3).default(1).meta({
    description: "Test the other metrics on the same day and up to this many days before.",
  }),
  top: z.int().min(1).max(20).default(5).meta({
    description: "Return at most this many pairs, strongest first.",
  }),
  detrend: DetrendArg,
}).strict();

const Output = z.object({
  ...EnvelopeFields,
  metric: z.string(),
  unit: z.string().nullable(),
  max_lag: z.int(),
  detrend: z.enum(["weekday_trend", "weekday", "none"]),
  adjustments: Adjustments,
  tests_run: z.int(),
  discoveries: z.int(),
  results: z.array(z.object({
    other_metric: z.string(),
    lag_days: z.int(),
    r: z.number().min(-1).max(1),
    n_pairs: z.int(),
    n_eff: z.number(),
    adjustment: AppliedAdjustmentSchema,
    p_value: PValue,
    p_text: z.string(),
    q_value: z.number().min(0).max(1),
    q_text: z.string(),
    strength: z.enum(["negligible", "weak", "moderate", "strong"]),
    direction: z.enum(["positive", "negative"]).nullable(),
    confidence: z.enum(["high", "medium", "low"]),
    sentence: z.string(),
  })),
  withheld_pairs: z.array(z.object({
    other_metric: z.string(),
    lag_days: z.int(),
    reason: z.string(),
    needed: z.number(),
    have: z.number(),
  })),
  caveat: z.string(),
});

/** The `find_correlations` tool. */
export const findCorrelations = defineTool({
  name: "find_correlations",
  title: "Find what goes with a metric",
  description:
    "Screens one metric against every other (same day and up to max_lag days earlier) for " +
    "the strongest links surviving false-discovery control (Benjamini–Hochberg q < 0.10), " +
    "weekday rhythm and trend removed first (default), p on the effective number of days. " +
    "Find candidates here, then look closer with get_correlation or get_factor_effect.",
  input: Input,
  output: Output,
  run(record, args) {
    const target = findColumn(record, args.metric);
    const range = resolveWindow(record, args, DEFAULT_DAYS);
    const screen = screenCorrelations({
      record,
      target,
      range,
      maxLag: args.max_lag,
      detrend: args.detrend,
    });
    const adjustments = adjustmentsReport({
      detrend: args.detrend,
      applied: screen.tested.map((t) => t.correlation.applied),
      testsRun: screen.testsRun,
      multipleTesting: true,
    });
    return {
      ...envelope(record, range, definitionOf(target.key, args.max_lag, args.detrend)),
      metric: target.key,
      unit: target.unit,
      max_lag: args.max_lag,
      detrend: args.detrend,
      adjustments,
      tests_run: screen.testsRun,
      discoveries: screen.discoveries.length,
      results: screen.discoveries.slice(0, args.top).map((hit) => {
        const c = hit.correlation;
        const p = reportP(c.p), q = reportP(hit.q);
        const confidence = confidenceOf(hit.q, c.nEff);
        return {
          other_metric: hit.other.key,
          lag_days: hit.lag,
          r: roundOrNull(c.r, 2)!,
          n_pairs: c.n,
          n_eff: roundOrNull(c.nEff, 1)!,
          adjustment: c.applied,
          p_value: p.value!,
          p_text: p.text,
          q_value: q.value!,
          q_text: q.text,
          strength: strengthOf(c.r),
          direction: directionOf(c.r),
          confidence,
          sentence: correlationSentence({
            a: hit.other,
            b: target,
            lag: hit.lag,
            c: { ...c, confidence },
          }),
        };
      }),
      withheld_pairs: screen.withheld.map((w) => ({
        other_metric: w.other.key,
        lag_days: w.lag,
        ...w.withheld,
      })),
      caveat: "Association, not causation, and a screen of many pairs: some links ride on a " +
        "third metric (for example two habits that share workout days). Check a candidate " +
        "with get_correlation before acting on it.",
    };
  },
});

/** The method in one sentence. */
function definitionOf(target: string, maxLag: number, detrend: Detrend): string {
  const adjusted = detrend === "none"
    ? ""
    : detrend === "weekday"
    ? ", after removing each series' weekday means over the pairs"
    : ", after removing each series' weekday means and linear trend over the pairs (a " +
      "weekend/working-day split instead when some weekday has under 4 values)";
  return `Spearman correlation of every other active column on day d with ${target} on day ` +
    `d+lag for lag 0…${maxLag}, pairing only days where both are logged${adjusted}; p on ` +
    `df = n_eff − 2 − k, where n_eff is the effective number of pairs given both series' ` +
    `autocorrelation and k the adjustment's nuisance terms; pairs with under ${MIN_PAIRS} days ` +
    `(or ${MIN_PAIRS} effective days), a constant side, a yes/no side with under ` +
    `${MIN_BOOLEAN_CLASS} days in either answer or a scale under ${MIN_SCALE_LEVELS} levels are ` +
    `withheld; Benjamini–Hochberg q-values over all tests run, reported where ` +
    `q < ${Q_THRESHOLD.toFixed(2)}, strongest |r| first; confidence from q (high q ≤ 0.01 with ` +
    `n_eff ≥ 30, medium q ≤ 0.05, else low); p and q to two significant digits, "< 0.001" below.`;
}
