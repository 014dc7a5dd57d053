/** `get_overview`: one day or one ISO week across every column. */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import { formatDay, parseDay } from "../foundation/dates.ts";
import { envelope } from "../analytics/common.ts";
import { overviewRange, overviewRow } from "../analytics/overview.ts";
import { defineTool } from "./define_tool.ts";
import { DateString, EnvelopeFields } from "./schemas.ts";

const DEFINITION =
  "For each active column: the day's value (or, for a week, the column's daily_agg over the ISO week up to today, booleans as days done), goal_met for a daily goal on a day, progress as done/target (weekly goals: pro-rated week target; daily goals over a week: met/eligible days), streak_current as get_streak computes it on the period's last day, partial = a week with a day neither logged nor skipped (or still to come), and delta_vs_baseline = mean_per_day minus the mean of the 28 days before the period (needs 7 values), never imputing missing days.";

const Row = z.object({
  metric: z.string(),
  unit: z.string().nullable(),
  state: z.enum(["value", "skip", "missing", "pending"]),
  value: z.union([z.number(), z.boolean()]).nullable(),
  agg: z.enum(["sum", "mean", "median", "min", "max", "count", "rate", "last"]).nullable()
    .meta({ description: "How a week's value was aggregated; null for a day." }),
  n_days: z.int(),
  partial: z.boolean().meta({
    description: "For a week: some day is neither logged nor skipped (or still to come), so " +
      "value (a sum for additive columns) covers fewer days than a full week; compare " +
      "mean_per_day. Always false for a day.",
  }),
  mean_per_day: z.number().nullable(),
  goal_met: z.boolean().nullable(),
  progress: z.object({ done: z.int(), target: z.int() }).nullable(),
  streak_current: z.int(),
  baseline_28d: z.number().nullable(),
  delta_vs_baseline: z.number().nullable(),
});

/** The `get_overview` tool. */
export const getOverview = defineTool({
  name: "get_overview",
  title: "Overview of a day or week",
  description:
    "Every column for one day (default today) or ISO week in one call: values, goal status, current streaks, change against the previous 28 days, and what is still pending today. Start here for 'how am I doing today/this week'.",
  input: z.object({
    date: DateString.optional().meta({ description: "Date to show (default today)." }),
    period: z.enum(["day", "week"]).default("day").meta({
      description: '"day" for that date alone, "week" for its ISO week (Monday start) up to today.',
    }),
  }).strict(),
  output: z.object({
    ...EnvelopeFields,
    period: z.enum(["day", "week"]),
    rows: z.array(Row),
    logged_count: z.int(),
    pending_metrics: z.array(z.string()),
  }),
  run(record, args) {
    const date = args.date !== undefined ? parseDay(args.date)! : record.today;
    if (date > record.today) {
      throw new AppError(
        "invalid_request",
        `date ${formatDay(date)} is after today (${formatDay(record.today)}).`,
      );
    }
    const range = overviewRange(args.period, date, record.today);
    const columns = record.columns.filter((c) => !c.archived);
    const rows = columns.map((c) => overviewRow({ record, column: c, period: args.period, range }));
    const includesToday = range.end === record.today;
    return {
      ...envelope(record, range, DEFINITION),
      period: args.period,
      rows,
      logged_count: rows.filter((r) => r.state === "value").length,
      pending_metrics: includesToday
        ? columns.filter((c) => !record.values.get(c.key)?.has(record.today)).map((c) => c.key)
        : [],
    };
  },
});
