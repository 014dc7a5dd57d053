/**
 * `find_correlations`: screen one metric against all others, or every pair of the record
 * (domain-anchors §3.2 #14; issue #20 "One family per screen").
 */

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
import {
  Q_THRESHOLD,
  recordPairCount,
  runScreen,
  type Screen,
  type ScreenHit,
} from "../analytics/correlation_screen.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { AppError } from "../foundation/errors.ts";
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
  metric: MetricName.optional().meta({
    description: "Omit to screen every pair.",
  }),
  days: Days(DEFAULT_DAYS),
  ...RangeArgs,
  max_lag: z.int().min(0).max(3).default(1).meta({
    description: "Lags tested: the same day and up to this many days before.",
  }),
  top: z.int().min(1).max(20).default(5).meta({
    description: "Most pairs returned, strongest first.",
  }),
  family: z.enum(["record", "metric"]).default("record"),
  detrend: DetrendArg,
}).strict();

const Output = z.object({
  ...EnvelopeFields,
  metric: z.string().nullable(),
  unit: z.string().nullable(),
  max_lag: z.int(),
  detrend: z.enum(["weekday_trend", "weekday", "none"]),
  adjustments: Adjustments,
  family: z.enum(["record", "metric"]),
  // tests_run: the family's size (m); record_pairs: pairs a whole-record screen tries,
  // untestable ones included (family_note says each in words, with the metric's own tests)
  tests_run: z.int(),
  record_pairs: z.int(),
  family_note: z.string(),
  discoveries: z.int(),
  results: z.array(z.object({
    metric: z.string(),
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
    metric: z.string(),
    other_metric: z.string(),
    lag_days: z.int(),
    reason: z.string(),
    needed: z.number(),
    have: z.number(),
  })),
  caveat: z.string(),
});

type Args = z.infer<typeof Input>;

/** The `find_correlations` tool. */
export const findCorrelations = defineTool({
  name: "find_correlations",
  title: "Find what goes with a metric",
  description: "Screens one metric against every other (or, without metric, every pair), " +
    "up to max_lag days apart, for links with Benjamini–Yekutieli q < 0.10 over the record's " +
    "tests, weekday rhythm and trend removed (default). get_correlation's screen gives a q.",
  input: Input,
  output: Output,
  run(record, args) {
    const target = args.metric === undefined ? null : findColumn(record, args.metric);
    if (target === null && args.family === "metric") {
      throw new AppError("invalid_request", 'family "metric" needs a metric to screen.');
    }
    const range = resolveWindow(record, args, DEFAULT_DAYS);
    const outcome = runScreen({
      record,
      range,
      maxLag: args.max_lag,
      detrend: args.detrend,
      target,
      family: args.family,
    });
    const screen = outcome.shown;
    const recordPairs = recordPairCount(outcome.columns, args.max_lag);
    return {
      ...envelope(record, range, definitionOf(target?.key ?? null, args)),
      metric: target?.key ?? null,
      unit: target?.unit ?? null,
      max_lag: args.max_lag,
      detrend: args.detrend,
      adjustments: adjustmentsReport({
        detrend: args.detrend,
        applied: appliedOf(outcome.family),
        testsRun: screen.testsRun,
        multipleTesting: true,
        procedure: "benjamini_yekutieli",
      }),
      family: args.family,
      tests_run: screen.testsRun,
      record_pairs: recordPairs,
      family_note: familyNote({ args, target, screen, recordPairs }) +
        capNote(record, outcome.columns, target),
      discoveries: screen.discoveries.length,
      results: screen.discoveries.slice(0, args.top).map(resultOf),
      withheld_pairs: screen.withheld.map((w) => ({
        metric: w.b.key,
        other_metric: w.a.key,
        lag_days: w.lag,
        ...w.withheld,
      })),
      caveat: "Association, not causation, and a screen of many pairs: some links ride on a " +
        "third metric (for example two habits that share workout days). Check a candidate " +
        "with get_correlation before acting on it.",
    };
  },
});

function appliedOf(screen: Screen) {
  return screen.tested.map((t) => t.correlation.applied);
}

/** One reported pair: `other_metric` on day d against `metric` on day d + lag. */
function resultOf(hit: ScreenHit) {
  const c = hit.correlation;
  const p = reportP(c.p), q = reportP(hit.q);
  const confidence = confidenceOf(hit.q, c.nEff);
  return {
    metric: hit.b.key,
    other_metric: hit.a.key,
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
    sentence: correlationSentence({ a: hit.a, b: hit.b, lag: hit.lag, c: { ...c, confidence } }),
  };
}

/**
 * Which tests the q-values count, in words (issue #20 "One family per screen"): a metric's own
 * family says plainly that it ignores the rest of the screen and names the whole-record figure.
 */
function familyNote(
  o: { args: Args; target: Column | null; screen: Screen; recordPairs: number },
): string {
  const testsRun = o.screen.testsRun;
  const lags = o.args.max_lag === 0 ? "on the same day" : `at lags 0–${o.args.max_lag}`;
  if (o.args.family === "metric") {
    return `These q-values count only the ${testsRun} tests of ${o.target!.key}'s own pairs; ` +
      "they do not account for screening other metrics too, and screening every metric this " +
      `way finds false pairs far more often. A whole-record screen tries ${o.recordPairs} ` +
      `pairs (every pair of metrics ${lags}): call find_correlations without family "metric" ` +
      '(or without metric) for q-values over all of them; get_correlation with screen "metric" ' +
      "replays a pair's q here.";
  }
  const scope = o.target === null
    ? ""
    : `, ${o.screen.tested.length} of them ${o.target.key}'s own pairs`;
  return `q-values are Benjamini–Yekutieli over all ${testsRun} tests of a whole-record ` +
    `screen (every testable pair of metrics ${lags}${scope}), so screening every metric one by ` +
    "one finds exactly what one call without metric finds. get_correlation with screen " +
    `"record", screen_max_lag ${o.args.max_lag} and the same days and detrend replays a ` +
    "pair's q.";
}

/** Says which columns a capped whole-record screen read. */
function capNote(record: MemberRecord, k: number, target: Column | null): string {
  const active = record.columns.filter((c) => !c.archived).length;
  if (k >= active) return "";
  return ` With ${active} metrics, a screen reads the ${k} most logged in the range` +
    `${target ? ` (${target.key} among them)` : ""}.`;
}

/** The method in one sentence. */
function definitionOf(target: string | null, args: Args): string {
  const { max_lag: maxLag, detrend } = args;
  const adjusted = detrend === "none"
    ? ""
    : detrend === "weekday"
    ? ", after removing each series' weekday means over the pairs"
    : ", after removing each series' weekday means and linear trend over the pairs (a " +
      "weekend/working-day split instead when some weekday has under 4 values)";
  const pairs = target === null
    ? `every pair of active columns, A on day d with B on day d+lag for lag 0…${maxLag} ` +
      "(both directions at each lag above 0)"
    : `every other active column on day d with ${target} on day d+lag for lag 0…${maxLag}`;
  const family = args.family === "metric" || target === null
    ? "all tests run"
    : `all tests of the whole-record screen (every pair of active columns, both directions at ` +
      `lags 1…${maxLag}), of which ${target}'s are shown`;
  return `Spearman correlation of ${pairs}, pairing only days where both are logged${adjusted}; ` +
    `p on df = n_eff − 2 − k, where n_eff is the effective number of pairs given both series' ` +
    `autocorrelation and k the adjustment's nuisance terms; pairs with under ${MIN_PAIRS} days ` +
    `(or ${MIN_PAIRS} effective days), a constant side, a yes/no side with under ` +
    `${MIN_BOOLEAN_CLASS} days in either answer or a scale under ${MIN_SCALE_LEVELS} levels are ` +
    `withheld; Benjamini–Yekutieli q-values over ${family}, reported where ` +
    `q < ${Q_THRESHOLD.toFixed(2)}, strongest |r| first; confidence from q (high q ≤ 0.01 with ` +
    `n_eff ≥ 30, medium q ≤ 0.05, else low); p and q to two significant digits, "< 0.001" below.`;
}
