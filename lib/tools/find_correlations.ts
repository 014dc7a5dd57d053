/** `find_correlations`: screen one metric against all others (domain-anchors §3.2 #14). */

import { z } from "zod";
import { envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import {
  confidenceOf,
  correlationSentence,
  directionOf,
  MIN_BOOLEAN_CLASS,
  MIN_PAIRS,
  MIN_SCALE_LEVELS,
  strengthOf,
} from "../analytics/correlation.ts";
import { Q_THRESHOLD, screenCorrelations } from "../analytics/correlation_screen.ts";
import { roundOrNull, roundSig } from "../analytics/_wording.ts";
import { defineTool } from "./define_tool.ts";
import { Days, EnvelopeFields, MetricName, RangeArgs } from "./schemas.ts";

const DEFAULT_DAYS = 180;

const Input = z.object({
  metric: MetricName.meta({
    description: 'The metric to explain (column key), e.g. "mood".',
  }),
  days: Days(DEFAULT_DAYS),
  ...RangeArgs,
  max_lag: z.int().min(0).max(3).default(1).meta({
    description:
      "Test the other metrics on the same day and up to this many days before (0–3, default 1).",
  }),
  top: z.int().min(1).max(20).default(5).meta({
    description: "Return at most this many pairs, strongest first (1–20, default 5).",
  }),
}).strict();

const Output = z.object({
  ...EnvelopeFields,
  metric: z.string(),
  unit: z.string().nullable(),
  max_lag: z.int(),
  tests_run: z.int(),
  discoveries: z.int(),
  results: z.array(z.object({
    other_metric: z.string(),
    lag_days: z.int(),
    r: z.number().min(-1).max(1),
    n_pairs: z.int(),
    p_value: z.number().min(0).max(1),
    q_value: z.number().min(0).max(1),
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
    "Screens one metric against every other metric (same day and up to max_lag days earlier) " +
    "and returns the strongest links that survive false-discovery control (Benjamini–Hochberg " +
    "q < 0.10). Use it to discover candidates, then get_correlation or get_factor_effect to look closer.",
  input: Input,
  output: Output,
  run(record, args) {
    const target = findColumn(record, args.metric);
    const range = resolveWindow(record, args, DEFAULT_DAYS);
    const screen = screenCorrelations({ record, target, range, maxLag: args.max_lag });
    const definition = `Spearman correlation of every other active column on day d with ` +
      `${target.key} on day d+lag for lag 0…${args.max_lag}, pairing only days where both are ` +
      `logged; pairs with under ${MIN_PAIRS} days, a constant side, a yes/no side with under ` +
      `${MIN_BOOLEAN_CLASS} days in either answer or a scale under ${MIN_SCALE_LEVELS} levels ` +
      `are withheld; Benjamini–Hochberg q-values over all tests run, reported where ` +
      `q < ${Q_THRESHOLD.toFixed(2)}, strongest |r| first.`;
    return {
      ...envelope(record, range, definition),
      metric: target.key,
      unit: target.unit,
      max_lag: args.max_lag,
      tests_run: screen.testsRun,
      discoveries: screen.discoveries.length,
      results: screen.discoveries.slice(0, args.top).map((hit) => {
        const c = hit.correlation;
        return {
          other_metric: hit.other.key,
          lag_days: hit.lag,
          r: roundOrNull(c.r, 3)!,
          n_pairs: c.n,
          p_value: roundSig(c.p)!,
          q_value: roundSig(hit.q)!,
          strength: strengthOf(c.r),
          direction: directionOf(c.r),
          confidence: confidenceOf(c.p, c.n),
          sentence: correlationSentence({ a: hit.other, b: target, lag: hit.lag, c }),
        };
      }),
      withheld_pairs: screen.withheld.map((w) => ({
        other_metric: w.other.key,
        lag_days: w.lag,
        ...w.withheld,
      })),
      caveat: "Association, not causation, and a screen of many pairs: some links ride on a " +
        "third metric (for example two habits that share workout days). Check a candidate " +
        "with get_correlation (detrend: weekday) before acting on it.",
    };
  },
});
