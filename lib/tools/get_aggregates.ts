/** `get_aggregates`: one column bucketed by day, ISO week or month. */

import { z } from "zod";
import { envelope, findColumn, resolveWindow, seriesOf } from "../analytics/common.ts";
import {
  type Agg,
  aggregateBuckets,
  assertAggAllowed,
  defaultAgg,
} from "../analytics/aggregates.ts";
import { defineTool } from "./define_tool.ts";
import { Coverage, Days, EnvelopeFields, MetricName, RangeArgs } from "./schemas.ts";

const DEFINITION =
  "Splits the inclusive range into calendar buckets (days, ISO weeks starting Monday, or calendar months, clipped to the range) and aggregates the logged values in each (booleans as 1/0; count = days with a value; rate = share of logged days that are true or meet the day goal; default = the column's daily_agg, booleans use rate), skipping skip and missing days, with coverage = days with a value / days in the bucket.";

const AggName = z.enum(["sum", "mean", "median", "min", "max", "count", "rate", "last"]);

/** The `get_aggregates` tool. */
export const getAggregates = defineTool({
  name: "get_aggregates",
  title: "Aggregates by day, week or month",
  description:
    "A bucketed series of one column (sum, mean, median, min, max, count or rate per day, ISO week or month) with per-bucket coverage. Use it for charts and 'weekly average / monthly total' questions.",
  input: z.object({
    metric: MetricName,
    bucket: z.enum(["day", "week", "month"]).default("week").meta({
      description: "Bucket size: day, ISO week (Monday start) or calendar month (default week).",
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
    })),
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
    return {
      ...envelope(record, range, DEFINITION),
      metric: column.key,
      unit: column.unit,
      bucket: args.bucket,
      agg_used: agg,
      week_starts: "monday" as const,
      n,
      coverage: { days_with_value: n, days_in_range: range.end - range.start + 1 },
      buckets,
    };
  },
});
