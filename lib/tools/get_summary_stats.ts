/** `get_summary_stats`: descriptive statistics of one column over a window. */

import { z } from "zod";
import { envelope, findColumn, resolveWindow, seriesOf } from "../analytics/common.ts";
import { withClockDefinition } from "../analytics/circular.ts";
import { summaryStats } from "../analytics/aggregates.ts";
import { defineTool } from "./define_tool.ts";
import { Coverage, Days, EnvelopeFields, MetricName, RangeArgs, Withheld } from "./schemas.ts";

const DEFINITION =
  "Over the days in the inclusive range that have a value (skip and missing days excluded, nothing imputed): mean, median, sample SD (n − 1), min and max with their dates (ties → most recent), p10 and p90 by linear interpolation (Hyndman–Fan type 7), sum for additive columns (daily_agg sum), true_rate for booleans and a count per level for scales.";

const Dated = z.object({ value: z.number(), date: z.string() });

/** The `get_summary_stats` tool. */
export const getSummaryStats = defineTool({
  name: "get_summary_stats",
  title: "Summary statistics",
  description:
    "Descriptive statistics of one column over a window (default 30 days): n, coverage, mean, median, SD, min/max with dates, p10/p90, sum, a yes/no column's true rate and a 1–5 scale's distribution. For 'what is my typical / average / range'.",
  input: z.object({ metric: MetricName, days: Days(30), ...RangeArgs }).strict(),
  output: z.object({
    ...EnvelopeFields,
    metric: z.string(),
    unit: z.string().nullable(),
    n: z.int(),
    coverage: Coverage,
    mean: z.number().nullable(),
    median: z.number().nullable(),
    sd: z.number().nullable(),
    min: Dated.nullable(),
    max: Dated.nullable(),
    p10: z.number().nullable(),
    p90: z.number().nullable(),
    sum: z.number().nullable(),
    true_rate: z.number().nullable(),
    distribution: z.record(z.string(), z.int()).nullable(),
    withheld: Withheld.nullable(),
  }),
  run(record, args) {
    const column = findColumn(record, args.metric);
    const range = resolveWindow(record, args, 30);
    const { days_in_range, ...stats } = summaryStats(column, seriesOf(record, column.key), range);
    return {
      ...envelope(record, range, withClockDefinition(column, DEFINITION)),
      metric: column.key,
      unit: column.unit,
      ...stats,
      coverage: { days_with_value: stats.n, days_in_range },
      withheld: stats.n === 0 ? { reason: "no_values", needed: 1, have: 0 } : null,
    };
  },
});
