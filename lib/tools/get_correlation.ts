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
import type { Correlation } from "../analytics/correlation.ts";
import { MIN_EFFECTIVE_PAIRS, reportP } from "../analytics/adjust.ts";
import { adjustmentsReport } from "../analytics/adjustment_report.ts";
import { daysWord, phraseOf, roundOrNull } from "../analytics/_wording.ts";
import { AppError } from "../foundation/errors.ts";
import type { DayRange } from "../analytics/common.ts";
import type { MemberRecord } from "../record/types.ts";
import { findPair, pairKey, runScreen, type Screen } from "../analytics/correlation_screen.ts";
import { defineTool } from "./define_tool.ts";
import {
  Adjustments,
  Coverage,
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

const DEFAULT_DAYS = 90;

const Input = z.object({
  metric_a: MetricName.meta({
    description: "Leading metric; its day d pairs with B's day d + lag_days.",
  }),
  metric_b: MetricName.meta({
    description: 'The other metric, e.g. "mood".',
  }),
  lag_days: z.int().min(-7).max(7).default(0).meta({
    description: "B follows A by this many days.",
  }),
  days: Days(DEFAULT_DAYS),
  ...RangeArgs,
  method: z.enum(["spearman", "pearson"]).default("spearman").meta({
    description: "spearman (ranks, suits 1–5 scales) or pearson (linear).",
  }),
  detrend: DetrendArg,
  screen: z.enum(["record", "metric"]).optional().meta({
    description: "find_correlations' q: family record, or metric (the later one's own).",
  }),
  screen_max_lag: z.int().min(0).max(3).default(1),
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
  logging: Logging,
  withheld: Withheld.optional(),
  // with screen: the pair's Benjamini–Yekutieli q (reported like p; the caveat gives its text)
  // and the number of tests in its family
  q_value: z.number().min(0).max(1).nullable(),
  family_size: z.int().nullable(),
});

type Args = z.infer<typeof Input>;

/** The `get_correlation` tool. */
export const getCorrelation = defineTool({
  name: "get_correlation",
  title: "Correlation between two metrics",
  description:
    "How strongly two metrics move together (Spearman by default), B optionally lagged 1–7 " +
    "days after A, weekday rhythm and trend removed first (default): r, n, effective n, p, " +
    "95% CI, a sentence and a causation caveat; withheld under " +
    `${MIN_EFFECTIVE_PAIRS} effective pairs.`,
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
    const screened = args.screen ? screenedPair(record, range, args) : null;
    const q = screened && shown ? screened.q : NaN;
    const confidence = shown ? confidenceOf(screened ? q : c.p, c.nEff) : null;
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
      adjustments: adjustmentsOf(args, c, screened),
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
        `both. ${pairing} ${testingNote(screened, q)}`,
      // each metric over the range: both days of every pair fall inside it
      logging: loggingOut(loggingPattern(record, [
        { column: a, range },
        { column: b, range },
      ])),
      ...(c.withheld ? { withheld: c.withheld } : {}),
      q_value: reportP(q).value,
      family_size: screened?.familySize ?? null,
    };
  },
});

/** What was removed and how many tests were run: the screen's family, or this one test. */
function adjustmentsOf(
  args: Args,
  c: Correlation,
  screened: ReturnType<typeof screenedPair> | null,
) {
  return screened
    ? adjustmentsReport({
      detrend: args.detrend,
      applied: screened.applied,
      testsRun: screened.familySize,
      multipleTesting: true,
      procedure: "benjamini_yekutieli",
    })
    : adjustmentsReport({
      detrend: args.detrend,
      applied: Number.isNaN(c.nEff) ? [] : [c.applied],
      testsRun: c.withheld === null ? 1 : 0,
      multipleTesting: false,
    });
}

/**
 * The pair's place in the screen `args.screen` names (issue #20: a finding replays its q). The
 * screened metric of a family is the later metric (B, or A at a negative lag), as
 * find_correlations reports it; a capped whole-record screen keeps it too, as that call did.
 */
function screenedPair(record: MemberRecord, range: DayRange, args: Args) {
  if (args.method !== "spearman") {
    throw new AppError("invalid_request", "A screen's q is over Spearman tests: drop method.");
  }
  const target = findColumn(record, args.lag_days < 0 ? args.metric_a : args.metric_b);
  const family = args.screen!;
  const screen = runScreen({
    record,
    range,
    maxLag: args.screen_max_lag,
    detrend: args.detrend,
    target,
    family,
  }).family;
  const hit = findPair(screen, args.metric_a, args.metric_b, args.lag_days);
  if (hit === null && !withheldBy(screen, args)) {
    throw new AppError(
      "invalid_request",
      `That screen does not test ${args.metric_a} → ${args.metric_b} at a ${args.lag_days} day ` +
        "lag: it tests lags 0 to screen_max_lag, and a metric's own family only pairs where " +
        "that metric comes later.",
    );
  }
  return {
    q: hit?.q ?? NaN,
    familySize: screen.testsRun,
    family,
    target: target.key,
    maxLag: args.screen_max_lag,
    applied: screen.tested.map((t) => t.correlation.applied),
  };
}

/** Whether the screen tried the pair but withheld it (so it has no q). */
function withheldBy(family: Screen, args: Args): boolean {
  const key = pairKey(args.metric_a, args.metric_b, args.lag_days);
  return family.withheld.some((w) => pairKey(w.a.key, w.b.key, w.lag) === key);
}

/** Whether the p is a single test's, or which family the q counts (issue #20). */
function testingNote(screened: ReturnType<typeof screenedPair> | null, q: number): string {
  if (screened === null) {
    return "This p is a single test's: it does not account for any screen that found the " +
      'pair. For a pair found by find_correlations, screen "record" (or "metric" for a ' +
      "family-metric call) with screen_max_lag set to its max_lag gives the pair's q in that " +
      "screen's family.";
  }
  const which = screened.family === "metric"
    ? `${screened.target}'s own pairs`
    : "a whole-record screen";
  const qText = Number.isNaN(q)
    ? "no q (the screen could not test this pair)"
    : `q ${reportP(q).text}`;
  return `In ${which} of ${screened.familySize} tests (lags 0–${screened.maxLag}), this ` +
    `pair has Benjamini–Yekutieli ${qText}; confidence words are from q.`;
}
