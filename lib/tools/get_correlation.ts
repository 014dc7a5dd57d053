/** `get_correlation`: how two metrics move together, optionally with a lag (domain-anchors §3.2 #13). */

import { z } from "zod";
import { formatDay } from "../foundation/dates.ts";
import { envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import {
  confidenceOf,
  correlate,
  correlationDefinition,
  correlationSentence,
  directionOf,
  strengthOf,
} from "../analytics/correlation.ts";
import { MIN_EFFECTIVE_PAIRS, reportP } from "../analytics/adjust.ts";
import { adjustmentsReport } from "../analytics/adjustment_report.ts";
import { daysWord, phraseOf, roundOrNull } from "../analytics/_wording.ts";
import { AppError } from "../foundation/errors.ts";
import { defineTool } from "./define_tool.ts";
import {
  Adjustments,
  Coverage,
  Days,
  DetrendArg,
  EnvelopeFields,
  MetricName,
  PValue,
  RangeArgs,
  Withheld,
} from "./schemas.ts";

const DEFAULT_DAYS = 90;

const Input = z.object({
  metric_a: MetricName.meta({
    description:
      'The leading metric (column key), e.g. "sleep_hours"; its day d is paired with B\'s day d + lag_days.',
  }),
  metric_b: MetricName.meta({
    description: 'The other metric (column key), e.g. "mood".',
  }),
  lag_days: z.int().min(-7).max(7).default(0).meta({
    description: "Days by which B follows A: 1 pairs A on a day with B on the next day.",
  }),
  days: Days(DEFAULT_DAYS),
  ...RangeArgs,
  method: z.enum(["spearman", "pearson"]).default("spearman").meta({
    description: "spearman (rank-based, robust, suits 1–5 scales) or pearson (linear, raw values).",
  }),
  detrend: DetrendArg,
}).strict();

const Output = z.object({
  ...EnvelopeFields,
  metric_a: z.string(),
  metric_b: z.string(),
  unit_a: z.string().nullable(),
  unit_b: z.string().nullable(),
  lag_days: z.int(),
  method: z.enum(["spearman", "pearson"]),
  detrend: z.enum(["weekday_trend", "weekday", "none"]),
  adjustments: Adjustments,
  r: z.number().min(-1).max(1).nullable(),
  n_pairs: z.int(),
  n_eff: z.number().nullable(),
  p_value: PValue.nullable(),
  p_text: z.string(),
  // Two-element array rather than z.tuple: tuples become 2020-12 `prefixItems`, which draft-07
  // validators (the MCP SDK client's) misread.
  ci95: z.array(z.number()).length(2).nullable(),
  strength: z.enum(["negligible", "weak", "moderate", "strong"]).nullable(),
  direction: z.enum(["positive", "negative"]).nullable(),
  confidence: z.enum(["high", "medium", "low"]).nullable(),
  first_pair: z.object({ a_date: z.string(), b_date: z.string() }).nullable(),
  coverage_a: Coverage,
  coverage_b: Coverage,
  sentence: z.string(),
  caveat: z.string(),
  withheld: Withheld.optional(),
});

/** The `get_correlation` tool. */
export const getCorrelation = defineTool({
  name: "get_correlation",
  title: "Correlation between two metrics",
  description:
    "How strongly two metrics move together in the member's record (Spearman by default), " +
    "optionally B lagged 1–7 days after A, each metric's weekday rhythm and trend removed " +
    "first (default): r, n, effective n, p, a 95% CI, a plain sentence and a causation " +
    "caveat; r is withheld when the data cannot support it (e.g. under " +
    `${MIN_EFFECTIVE_PAIRS} effective pairs).`,
  input: Input,
  output: Output,
  run(record, args) {
    const a = findColumn(record, args.metric_a);
    const b = findColumn(record, args.metric_b);
    if (a.key === b.key && args.lag_days === 0) {
      throw new AppError(
        "invalid_request",
        "A metric correlates perfectly with itself on the same day; pick two metrics or a lag.",
      );
    }
    const range = resolveWindow(record, args, DEFAULT_DAYS);
    const lag = args.lag_days;
    const c = correlate({ record, a, b, lag, range, method: args.method, detrend: args.detrend });
    const days = range.end - range.start + 1;
    const pa = phraseOf(a), pb = phraseOf(b);
    const pairing = c.firstA === null
      ? `No day in the range has both ${pa} and ${pb} (${lag} day lag) logged.`
      : `Pairs match ${pa} on one day with ${pb} ${
        lag === 0
          ? "on the same day"
          : `${daysWord(Math.abs(lag))} ${lag > 0 ? "later" : "earlier"}`
      }; the first pair is ${formatDay(c.firstA)} → ${formatDay(c.firstA + lag)}.`;
    const shown = c.withheld === null;
    const ci95: [number, number] | null = shown && Number.isFinite(c.ciLow)
      ? [roundOrNull(c.ciLow, 2)!, roundOrNull(c.ciHigh, 2)!]
      : null;
    const p = reportP(shown ? c.p : NaN);
    const confidence = shown ? confidenceOf(c.p, c.nEff) : null;
    return {
      ...envelope(
        record,
        range,
        correlationDefinition({ a, b, lag, method: args.method, detrend: args.detrend }),
      ),
      metric_a: a.key,
      metric_b: b.key,
      unit_a: a.unit,
      unit_b: b.unit,
      lag_days: lag,
      method: args.method,
      detrend: args.detrend,
      adjustments: adjustmentsReport({
        detrend: args.detrend,
        applied: Number.isNaN(c.nEff) ? [] : [c.applied],
        testsRun: shown ? 1 : 0,
        multipleTesting: false,
      }),
      r: shown ? roundOrNull(c.r, 2) : null,
      n_pairs: c.n,
      n_eff: roundOrNull(c.nEff, 1),
      p_value: p.value,
      p_text: p.text,
      ci95,
      strength: shown ? strengthOf(c.r) : null,
      direction: shown ? directionOf(c.r) : null,
      confidence,
      first_pair: c.firstA === null
        ? null
        : { a_date: formatDay(c.firstA), b_date: formatDay(c.firstA + lag) },
      coverage_a: { days_with_value: c.daysWithA, days_in_range: days },
      coverage_b: { days_with_value: c.daysWithB, days_in_range: days },
      sentence: correlationSentence({ a, b, lag, c: { ...c, confidence } }),
      caveat: "Association, not causation: this only shows how the two metrics moved together " +
        "in your record, and something else (your weekly routine, illness, travel) can drive " +
        `both. ${pairing}`,
      ...(c.withheld ? { withheld: c.withheld } : {}),
    };
  },
});
