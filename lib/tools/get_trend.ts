/** `get_trend`: is a metric getting better or worse than the previous equal window (§3.2 #10)? */

import { z } from "zod";
import { formatDay } from "../foundation/dates.ts";
import { envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import {
  computeTrend,
  MIN_TREND_EFFECT,
  MIN_TREND_EFFECTIVE_DAYS,
  MIN_TREND_VALUES,
  type Trend,
  TREND_ALPHA,
} from "../analytics/trend.ts";
import { AR1_PRIOR, AR1_PRIOR_PAIRS, MAX_AR1 } from "../analytics/adjust.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { phraseOf, roundOrNull, roundSig } from "../analytics/_wording.ts";
import { reportP } from "../analytics/adjust.ts";
import { clockLevel, isClock, withClockDefinition } from "../analytics/circular.ts";
import { defineTool } from "./define_tool.ts";
import {
  Coverage,
  EnvelopeFields,
  Logging,
  loggingOut,
  MetricName,
  PValue,
  Range,
  Withheld,
} from "./schemas.ts";
import { MAX_FREQUENCY_CHANGE, withStatedDifference } from "../analytics/logging_pattern.ts";
import { DirectionSchema, MAX_SPAN_DAYS } from "../record/columns.ts";

const DEFAULT_DAYS = 28;
/** The longer window a shorter call is checked against (issue #20 item 11). */
export const LONGER_WINDOW_DAYS = 90;
/** Both windows together must fit the 366-day span limit. */
const MAX_WINDOW = Math.floor(MAX_SPAN_DAYS / 2);

const Input = z.object({
  metric: MetricName,
  days: z.int().min(1).max(MAX_WINDOW).default(DEFAULT_DAYS).meta({
    description: "Each window's length: the last days against the days before.",
  }),
  adjust: z.enum(["weekday_autocorrelation", "none"]).default("weekday_autocorrelation").meta({
    description:
      "Weekday means removed first, or none (values as logged); both persistence-corrected.",
  }),
}).strict();

const Output = z.object({
  ...EnvelopeFields,
  metric: z.string(),
  unit: z.string().nullable(),
  direction: DirectionSchema,
  previous_range: Range,
  current_mean: z.number().nullable(),
  previous_mean: z.number().nullable(),
  delta: z.number().nullable(),
  delta_pct: z.number().nullable(),
  slope_per_week: z.number().nullable(),
  adjust: z.enum(["weekday_autocorrelation", "none"]),
  variance_inflation: z.number().nullable().meta({
    description: "Test widening from persistence (1 = none).",
  }),
  persistence: z.number().nullable(),
  n_eff: z.number().nullable(),
  p_value: PValue.nullable(),
  p_text: z.string(),
  verdict: z.enum([
    "improving",
    "worsening",
    "increasing",
    "decreasing",
    "stable",
    "insufficient_data",
    // the windows were logged more than 25 % apart (definition, logging.note): tools/list's
    // byte budget (tests/http/tools_list_size_test.ts) leaves the meaning to those
    "not_comparable",
  ]),
  n_current: z.int(),
  n_previous: z.int(),
  coverage: Coverage,
  logging: Logging,
  longer_window: z.object({
    days: z.int(),
    verdict: z.string(),
    p_value: PValue.nullable(),
    p_text: z.string(),
    agrees: z.boolean(),
  }).nullable(),
  sentence: z.string(),
  withheld: Withheld.optional(),
});

/** The `get_trend` tool. */
export const getTrend = defineTool({
  name: "get_trend",
  title: "Trend vs the previous period",
  description:
    "Is a metric getting better or worse? Mean of the last `days` (default 28) vs the `days` " +
    "before, Mann–Kendall (weekday rhythm removed, persistence-corrected), Theil–Sen weekly " +
    "slope, the change read through the metric's direction. Under " +
    `${MIN_TREND_EFFECTIVE_DAYS} effective days (n_eff) no p or verdict; \`longer_window\` ` +
    `gives the ${LONGER_WINDOW_DAYS}-day verdict.`,
  input: Input,
  output: Output,
  run(record, args) {
    const column = findColumn(record, args.metric);
    const range = resolveWindow(record, { days: args.days }, DEFAULT_DAYS);
    const t = computeTrend({ record, column, current: range, adjust: args.adjust });
    const delta = t.currentMean - t.previousMean;
    const enough = t.verdict !== "insufficient_data" && t.verdict !== "not_comparable";
    const definition = trendDefinition(args.days, args.adjust);
    const longer = longerWindow({ record, column, end: range.end, args, t });
    return {
      ...envelope(record, range, withClockDefinition(column, definition)),
      metric: column.key,
      unit: column.unit,
      direction: column.direction,
      previous_range: { start: formatDay(t.previous.start), end: formatDay(t.previous.end) },
      current_mean: roundOrNull(clockLevel(column, t.currentMean)),
      previous_mean: roundOrNull(clockLevel(column, t.previousMean)),
      delta: roundOrNull(delta),
      // a percentage of a clock time means nothing (00:00 is not zero of anything)
      delta_pct: t.previousMean === 0 || isClock(column)
        ? null
        : roundOrNull((delta / Math.abs(t.previousMean)) * 100, 1),
      slope_per_week: enough ? roundSig(t.slopePerDay * 7) : null,
      adjust: args.adjust,
      variance_inflation: roundOrNull(t.inflation, 2),
      persistence: roundOrNull(t.phi, 2),
      n_eff: roundOrNull(t.nEff, 1),
      p_value: enough ? reportP(t.p).value : null,
      p_text: reportP(enough ? t.p : NaN).text,
      verdict: t.verdict,
      n_current: t.nCurrent,
      n_previous: t.nPrevious,
      coverage: { days_with_value: t.nCurrent, days_in_range: args.days },
      // a stated trend also names a logging change of 10–25 %; above 25 % there is no verdict
      logging: loggingOut(withStatedDifference(t.logging, enough && t.verdict !== "stable")),
      longer_window: longer,
      sentence: trendSentence(column, args.days, t, longer),
      ...(enough ? {} : { withheld: withheldOf(t) }),
    };
  },
});

/** The definition string: how the means, the test and the verdict are computed. */
function trendDefinition(days: number, adjust: "weekday_autocorrelation" | "none"): string {
  const tested = adjust === "none" ? "the values as logged" : "the values with their weekday " +
    "means removed (one mean per logged weekday; weekend/working days when a weekday has under 4)";
  return `Mean of logged values (skips and missing excluded) in the last ${days} days versus ` +
    `the ${days} days before; Mann–Kendall S (tie-corrected) on ${tested} over both windows, ` +
    `its variance multiplied by f = Σ_ij t̃_i·t̃_j·φ^|d_i−d_j| / Σ t̃_i² (t̃ = day number minus ` +
    `its mean, d = day numbers), where φ is the lag-1 autocorrelation r1 of the ranks of the ` +
    `least-squares residuals on weekday (or weekend) means and a linear trend, over pairs of ` +
    `consecutive days (successive values up to 7 days apart, φ = r1^(1/mean gap), when under 5 ` +
    `such pairs), bias-corrected by solving φ = r1 + (2 + 4φ)/n, clamped to [0, ${MAX_AR1}], ` +
    `then raised toward ${AR1_PRIOR} (never lowered): φ = max(φ, (m·φ + ${AR1_PRIOR_PAIRS}·` +
    `${AR1_PRIOR})/(m + ${AR1_PRIOR_PAIRS})), m = the pairs; z = (S − sign S)/√(Var(S)·f), p two-sided from Student's t ` +
    `on df = n/f − 2 − k (k = weekday groups − 1); n_eff = n/f. Theil–Sen slope over both ` +
    `windows. The verdict is not stable only if p < ${TREND_ALPHA}, |delta| ≥ ` +
    `${MIN_TREND_EFFECT} × the previous window's SD and S agrees in sign, read through the ` +
    `column's direction; not_comparable (no p) when the share of days logged differs by more ` +
    `than ${
      MAX_FREQUENCY_CHANGE * 100
    } % between the windows; needs ≥ ${MIN_TREND_VALUES} values in each window and n_eff ≥ ` +
    `${MIN_TREND_EFFECTIVE_DAYS}, else no p and no verdict.`;
}

/** Why no verdict was given. */
function withheldOf(t: Trend) {
  if (t.verdict === "not_comparable") {
    // as percentages: the less-logged window's share of days against the more-logged one's
    return {
      reason: "logging_frequency_changed",
      needed: Math.round((1 - MAX_FREQUENCY_CHANGE) * 100),
      have: Math.round((1 - t.logging.frequencyChange) * 100),
    };
  }
  if (t.withheld === "insufficient_effective_days") {
    const have = Number.isNaN(t.nEff) ? 0 : Math.floor(t.nEff);
    return { reason: "insufficient_effective_days", needed: MIN_TREND_EFFECTIVE_DAYS, have };
  }
  return {
    reason: "insufficient_data",
    needed: MIN_TREND_VALUES,
    have: Math.min(t.nCurrent, t.nPrevious),
  };
}

/** What the longer-window check needs. */
interface LongerWindowOptions {
  record: MemberRecord;
  column: Column;
  end: number;
  args: { days: number; adjust: "weekday_autocorrelation" | "none" };
  t: Trend;
}

/** The 90-day verdict when the call was shorter and the record has both 90-day windows. */
function longerWindow({ record, column, end, args, t }: LongerWindowOptions) {
  if (args.days >= LONGER_WINDOW_DAYS) return null;
  const current = { start: end - LONGER_WINDOW_DAYS + 1, end };
  const long = computeTrend({ record, column, current, adjust: args.adjust });
  if (long.verdict === "insufficient_data" || long.verdict === "not_comparable") return null;
  const p = reportP(long.p);
  return {
    days: LONGER_WINDOW_DAYS,
    verdict: long.verdict,
    p_value: p.value,
    p_text: p.text,
    agrees: long.verdict === t.verdict,
  };
}

/** One sentence: the verdict, why none was given, and any disagreement with 90 days. */
function trendSentence(
  column: Column,
  days: number,
  t: Trend,
  longer: ReturnType<typeof longerWindow>,
): string {
  const what = `your ${phraseOf(column)}`;
  let out: string;
  if (t.withheld === "insufficient_effective_days") {
    out = `Over the last ${days} days against the ${days} before, ${what} moves so much like ` +
      `the day before that the days count as about ${Math.floor(t.nEff || 0)} independent ` +
      `days, under the ${MIN_TREND_EFFECTIVE_DAYS} a trend test needs, so no trend is stated.`;
  } else if (t.verdict === "not_comparable") {
    out = `The last ${days} days and the ${days} before were logged on too different a share of ` +
      `days to compare ${what} fairly, so no trend is stated.`;
  } else if (t.verdict === "insufficient_data") {
    out = `Too few values to compare the last ${days} days with the ${days} before ` +
      `(${MIN_TREND_VALUES} needed in each).`;
  } else if (t.verdict === "stable") {
    out = `No clear change in ${what} over the last ${days} days against the ${days} before.`;
  } else {
    out = `Over the last ${days} days against the ${days} before, ${what} is ${t.verdict} ` +
      `(p ${reportP(t.p).text}).`;
  }
  if (longer && !longer.agrees) {
    out += ` Over ${longer.days}-day windows it reads ${longer.verdict} instead ` +
      `(p ${longer.p_text}); the longer view rests on more days.`;
  }
  return out;
}
