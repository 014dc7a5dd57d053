/** `get_aggregates`: one column bucketed by day, ISO week or month. */

import { z } from "zod";
import { envelope, findColumn, resolveWindow, seriesOf } from "../analytics/common.ts";
import { withClockDefinition } from "../analytics/circular.ts";
import {
  type Agg,
  aggregateBuckets,
  assertAggAllowed,
  defaultAgg,
} from "../analytics/aggregates.ts";
import { defineTool } from "./define_tool.ts";
import { Coverage, Days, EnvelopeFields, MetricName, RangeArgs } from "./schemas.ts";

const DEFINITION =
  "Splits the inclusive range into calendar buckets (days, ISO weeks starting Monday, or calendar months, clipped to the range) and aggregates the logged values in each (booleans as 1/0; count = days with a value; rate = share of logged days that are true or meet the day goal; default = the column's daily_agg, booleans use rate), skipping skip and missing days, with coverage = days with a value / days in the range's part of the bucket; a bucket is partial when some day of its whole calendar bucket has neither a value nor a skip or lies outside the range (e.g. the current week), and for sums daily_mean = sum / days with a value, so partial and full buckets can be compared.";

const AggName = z.enum(["sum", "mean", "median", "min", "max", "count", "rate", "last"]);

/** Says which buckets are not comparable as they stand (issue #12). */
function partialNote(partial: number, total: number, agg: Agg): string {
  if (partial === 0) return "Every bucket is fully logged (or skipped).";
  const which = `${partial} of ${total} buckets ${partial === 1 ? "is" : "are"} partly logged ` +
    "(partial: true)";
  return agg === "sum" || agg === "count"
    ? `${which}; their ${agg === "sum" ? "sums" : "counts"} cover fewer days than a full ` +
      `bucket's, so compare ${agg === "sum" ? "daily_mean" : "coverage"} instead.`
    : `${which}; each value uses only the logged days (n_days).`;
}

/** The `get_aggregates` tool. */
export const getAggregates = defineTool({
  name: "get_aggregates",
  title: "Aggregates by day, week or month",
  description:
    "A bucketed series of one column (sum, mean, median, min, max, count or rate per day, ISO week or month) with per-bucket coverage. For charts and 'weekly average / monthly total'.",
  input: z.object({
    metric: MetricName,
    bucket: z.enum(["day", "week", "month"]).default("week").meta({
      description: "Bucket size: day, ISO week (Monday start) or calendar month.",
    }),
    agg: z.enum(["default", "sum", "mean", "median", "min", "max", "count", "rate"]).default(
      "default",
    ).meta({
      description:
        'Aggregation per bucket; "default" uses the column\'s daily_agg (booleans: rate of true days).',
    }),
    days: Days(90),
    ...RangeArgs,
  }).strict(),
  output: z.object({
    ...EnvelopeFields,
    metric: z.string(),
    unit: z.string().nullable(),
    bucket: z.enum(["day", "week", "month"]),
    agg_used: AggName,
    week_starts: z.literal("monday"),
    n: z.int(),
    coverage: Coverage,
    buckets: z.array(z.object({
      start: z.string(),
      end: z.string(),
      value: z.number().nullable(),
      n_days: z.int(),
      coverage: z.number().meta({ description: "Share of the bucket's days with a value (0–1)." }),
      days_in_bucket: z.int().meta({
        description: "Calendar days of the whole bucket (7 for a week, 28–31 for a month).",
      }),
      days_skipped: z.int(),
      partial: z.boolean().meta({
        description: "True when some day of the calendar bucket has no value and no skip, or " +
          "is outside the range: a sum over it is not comparable with a full bucket's.",
      }),
      daily_mean: z.number().nullable().meta({
        description: "For sums: sum per logged day, comparable between partial and full buckets.",
      }),
    })),
    partial_buckets: z.int(),
    note: z.string(),
  }),
  run(record, args) {
    const column = findColumn(record, args.metric);
    const range = resolveWindow(record, args, 90);
    const agg: Agg = args.agg === "default" ? defaultAgg(column) : args.agg;
    assertAggAllowed(column, agg);
    const buckets = aggregateBuckets({
      column,
      series: seriesOf(record, column.key),
      range,
      bucket: args.bucket,
      agg,
    });
    const n = buckets.reduce((sum, b) => sum + b.n_days, 0);
    const partial = buckets.filter((b) => b.partial).length;
    return {
      ...envelope(record, range, withClockDefinition(column, DEFINITION)),
      metric: column.key,
      unit: column.unit,
      bucket: args.bucket,
      agg_used: agg,
      week_starts: "monday" as const,
      n,
      coverage: { days_with_value: n, days_in_range: range.end - range.start + 1 },
      buckets,
      partial_buckets: partial,
      note: partialNote(partial, buckets.length, agg),
    };
  },
});
