/** `get_trend`: is a metric getting better or worse than the previous equal window (§3.2 #10)? */

import { z } from "zod";
import { formatDay } from "../foundation/dates.ts";
import { envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import {
  computeTrend,
  MIN_TREND_EFFECT,
  MIN_TREND_VALUES,
  type Trend,
  TREND_ALPHA,
} from "../analytics/trend.ts";
import { roundOrNull, roundSig } from "../analytics/_wording.ts";
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
/** Both windows together must fit the 366-day span limit. */
const MAX_WINDOW = Math.floor(MAX_SPAN_DAYS / 2);

const Input = z.object({
  metric: MetricName,
  days: z.int().min(1).max(MAX_WINDOW).default(DEFAULT_DAYS).meta({
    description: "Length of each window: the last days ending today against the days before them.",
  }),
  adjust: z.enum(["weekday_autocorrelation", "none"]).default("weekday_autocorrelation").meta({
    description: "weekday_autocorrelation: weekday means removed, variance corrected for " +
      "day-to-day persistence (Hamed–Rao, 3 lags); none: the plain Mann–Kendall test on the " +
      "values as logged.",
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
    description: "Hamed–Rao n/n*: how much day-to-day persistence widened the test (1 = none).",
  }),
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
  withheld: Withheld.optional(),
});

/** The `get_trend` tool. */
export const getTrend = defineTool({
  name: "get_trend",
  title: "Trend vs the previous period",
  description:
    "Is a metric getting better or worse? The mean of the last `days` (default 28) against the " +
    "`days` before, a Mann–Kendall test (by default weekday rhythm removed, corrected for " +
    "day-to-day persistence), a Theil–Sen weekly slope, and the change read through the " +
    "metric's direction (lower-is-better: a decrease is improving).",
  input: Input,
  output: Output,
  run(record, args) {
    const column = findColumn(record, args.metric);
    const range = resolveWindow(record, { days: args.days }, DEFAULT_DAYS);
    const t = computeTrend({ record, column, current: range, adjust: args.adjust });
    const delta = t.currentMean - t.previousMean;
    const enough = t.verdict !== "insufficient_data" && t.verdict !== "not_comparable";
    const tested = args.adjust === "none"
      ? "the values as logged"
      : "the values with their weekday means removed, its variance multiplied by the Hamed–Rao " +
        "factor n/n* from significant rank autocorrelation at lags 1–3 of the Sen-detrended " +
        "values (floored at 1)";
    const definition = `Mean of logged values (skips and missing excluded) in the last ` +
      `${args.days} days versus the ${args.days} days before; Mann–Kendall test (tie-corrected, ` +
      `continuity-corrected normal approximation) on ${tested}, and Theil–Sen slope, over both ` +
      `windows; the ` +
      `verdict is not_comparable when the share of days logged differs by more than ` +
      `${MAX_FREQUENCY_CHANGE * 100} % between the windows (no subset of days would make them ` +
      `alike), else not stable only if p < ${TREND_ALPHA}, |delta| ≥ ${MIN_TREND_EFFECT} × the ` +
      `previous window's SD and the test agrees in sign, read through the column's direction; ` +
      `needs ≥ ${MIN_TREND_VALUES} values in each window.`;
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
      variance_inflation: enough ? roundOrNull(t.inflation, 2) : null,
      p_value: enough ? reportP(t.p).value : null,
      p_text: reportP(enough ? t.p : NaN).text,
      verdict: t.verdict,
      n_current: t.nCurrent,
      n_previous: t.nPrevious,
      coverage: { days_with_value: t.nCurrent, days_in_range: args.days },
      // a stated trend also names a logging change of 10–25 %; above 25 % there is no verdict
      logging: loggingOut(withStatedDifference(t.logging, enough && t.verdict !== "stable")),
      ...(enough ? {} : { withheld: trendWithheld(t) }),
    };
  },
});

/** Why a trend gives no verdict: too few values, or windows logged too differently. */
function trendWithheld(t: Trend) {
  if (t.verdict === "not_comparable") {
    // as percentages: the less-logged window's share of days against the more-logged one's
    return {
      reason: "logging_frequency_changed",
      needed: Math.round((1 - MAX_FREQUENCY_CHANGE) * 100),
      have: Math.round((1 - t.logging.frequencyChange) * 100),
    };
  }
  return {
    reason: "insufficient_data",
    needed: MIN_TREND_VALUES,
    have: Math.min(t.nCurrent, t.nPrevious),
  };
}
