/** zod pieces shared by the eighteen tools' input and output schemas (domain-anchors §3.1). */

import { z } from "zod";
import { formatDay, parseDay, WEEKDAY_NAMES } from "../foundation/dates.ts";
import { DirectionSchema, MAX_SPAN_DAYS } from "../record/columns.ts";
import type { LoggingPattern } from "../analytics/logging_pattern.ts";

/** A member-local calendar date `YYYY-MM-DD` that exists. */
export const DateString = z.string().refine((s) => parseDay(s) !== null, {
  message: "must be a real calendar date in the form YYYY-MM-DD",
}).meta({ format: "date", examples: ["2026-03-18"] });

/**
 * What the arguments many tools share mean. Each schema below carries its text (OpenAPI, the
 * docs); `tools/list` says it once in the server's instructions instead of in every tool
 * (compact_schema.ts, issue #13).
 */
export const SHARED_ARGUMENTS = {
  metric: "Column key (list_columns).",
  days: "Days ending today.",
  start: "First date; overrides days.",
  end: "Last date (default today).",
  detrend: "weekday_trend (default) removes each metric's usual level per weekday and its " +
    "linear trend first, so a shared weekly rhythm or a slow drift is not mistaken for a link; " +
    "weekday removes only the weekday levels; none uses raw values. The answer's adjustments " +
    "field says what ran.",
} as const;

/** What result fields several tools share mean: said once in `tools/list` (compact_schema.ts). */
export const SHARED_RESULT_FIELDS = {
  p_value: 'Two significant digits; below 0.001 it reads 0.001 and p_text says "< 0.001".',
  logging: "How often each metric was logged in each window the answer read (days from the " +
    "metric's first logged day; a skip is not logged): low_share when one was logged on under " +
    "60 % of its days, frequency_changed when two compared windows' shares differ by over 25 %; " +
    "note says it in a sentence (values logged mostly on some kinds of days bias the answer).",
} as const;

/**
 * Vocabularies several result fields share, by the fields that take them: `tools/list` names
 * each once (compact_schema.ts) rather than repeating its values in every field.
 */
export const SHARED_VOCABULARIES: Record<string, readonly string[]> = {
  "the *_weekday fields": WEEKDAY_NAMES,
  "a metric's direction (list_columns)": DirectionSchema.options,
};

/** A p-value as reported (analytics/adjust.ts `reportP`). */
export const PValue = z.number().min(0).max(1).meta({ description: SHARED_RESULT_FIELDS.p_value });

/** The longest column key (and paging cursor) an argument may carry. */
export const KEY_MAX_LENGTH = 64;

/** A column key as `list_columns` reports it. */
export const MetricName = z.string().min(1).max(KEY_MAX_LENGTH).meta({
  description: SHARED_ARGUMENTS.metric,
});

/** A window length in days ending today. */
export const Days = (defaultDays: number) =>
  z.int().min(1).max(MAX_SPAN_DAYS).default(defaultDays).meta({
    description: SHARED_ARGUMENTS.days,
  });

/** Optional explicit inclusive range; both override `days`. */
export const RangeArgs = {
  start: DateString.optional().meta({ description: SHARED_ARGUMENTS.start }),
  end: DateString.optional().meta({ description: SHARED_ARGUMENTS.end }),
};

/** `{start, end}` as dates. */
export const Range = z.object({ start: z.string(), end: z.string() });

/** `withheld` replaces a number when the data cannot support it. */
export const Withheld = z.object({
  reason: z.string(),
  needed: z.number(),
  have: z.number(),
});

/** `coverage` of a window. */
export const Coverage = z.object({ days_with_value: z.int(), days_in_range: z.int() });

/** Fields every tool result carries (domain-anchors §3.1 "Envelope"). */
export const EnvelopeFields = {
  timezone: z.string(),
  today: z.string(),
  range: Range,
  generated_at: z.string(),
  definition: z.string(),
};

/** What a correlation-style tool removes from each series first (statistics.md §3). */
export const DetrendArg = z.enum(["weekday_trend", "weekday", "none"]).default("weekday_trend")
  .meta({ description: SHARED_ARGUMENTS.detrend });

/** An adjustment as it actually ran (a short series falls back to a weekend split or a trend). */
export const AppliedAdjustmentSchema = z.enum([
  "weekday_trend",
  "weekend_trend",
  "trend",
  "weekday",
  "weekend",
  "none",
]);

/** Which adjustments ran to produce an inferential answer (statistics.md §4 "Say what ran"). */
export const Adjustments = z.object({
  detrend: z.enum(["weekday_trend", "weekday", "none"]),
  detrend_applied: z.array(AppliedAdjustmentSchema),
  effective_sample_size: z.enum(["bartlett_multilag"]),
  multiple_testing: z.enum(["benjamini_yekutieli", "benjamini_hochberg", "none"]),
  tests_run: z.int(),
  confidence_from: z.enum(["q", "p"]),
  summary: z.string(),
});

/** How often the metrics were logged in the windows an answer read (logging_pattern.ts). */
export const Logging = z.object({
  windows: z.array(z.object({
    metric: z.string(),
    start: z.string(),
    end: z.string(),
    days_logged: z.int(),
    days_counted: z.int(),
    share: z.number().nullable(),
  })),
  low_share: z.boolean(),
  frequency_change: z.number().nullable(),
  frequency_changed: z.boolean(),
  note: z.string().nullable(),
}).meta({ description: SHARED_RESULT_FIELDS.logging });

/** A logging pattern as the `logging` field reports it. */
export function loggingOut(p: LoggingPattern): z.infer<typeof Logging> {
  const pct = (x: number) => Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null;
  return {
    windows: p.windows.map((w) => ({
      metric: w.column.key,
      start: formatDay(w.range.start),
      end: formatDay(w.range.end),
      days_logged: w.daysLogged,
      days_counted: w.daysCounted,
      share: pct(w.share),
    })),
    low_share: p.lowShare,
    frequency_change: pct(p.frequencyChange),
    frequency_changed: p.frequencyChanged,
    note: p.note,
  };
}
