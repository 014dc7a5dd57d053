/** `get_personal_bests`: records of one column. */

import { z } from "zod";
import { MAX_SPAN_DAYS } from "../record/columns.ts";
import { envelope, findColumn, seriesOf } from "../analytics/common.ts";
import { columnExtent } from "../analytics/columns.ts";
import { MIN_VALUES_7D, personalBests } from "../analytics/personal_bests.ts";
import { defineTool } from "./define_tool.ts";
import { EnvelopeFields, MetricName, Withheld } from "./schemas.ts";

const DEFINITION =
  `Over the column's history (at most the last ${MAX_SPAN_DAYS} days), best follows the column's direction (lower_better → lowest), ties go to the most recent date, the best 7-day mean needs at least ${MIN_VALUES_7D} values in its 7 days, the best week (ISO, Monday start) and month use the column's daily_agg (booleans: days done) over complete periods with values on at least half their days, the longest streak is get_streak's, and recent_record means one of these was first reached in the last 7 days (a recent value that only ties an older best is not a new record).`;

const DayRecord = z.object({ date: z.string(), value: z.number() });

/** The `get_personal_bests` tool. */
export const getPersonalBests = defineTool({
  name: "get_personal_bests",
  title: "Personal bests",
  description:
    "Records of one column: best and worst days, best 7-day average, best week and month, longest streak, and whether a record fell in the last 7 days. For 'what is my best / highest / lowest ever', and to celebrate new records.",
  input: z.object({
    metric: MetricName,
    top: z.int().min(1).max(10).default(3).meta({
      description: "How many best and worst days to list.",
    }),
  }).strict(),
  output: z.object({
    ...EnvelopeFields,
    metric: z.string(),
    unit: z.string().nullable(),
    best_is: z.enum(["highest", "lowest"]),
    n: z.int(),
    best_days: z.array(DayRecord),
    worst_days: z.array(DayRecord),
    best_7d_mean: z.object({ start: z.string(), end: z.string(), value: z.number(), n: z.int() })
      .nullable(),
    best_week: z.object({ start: z.string(), end: z.string(), value: z.number(), n_days: z.int() })
      .nullable(),
    best_month: z.object({ month: z.string(), value: z.number(), n_days: z.int() }).nullable(),
    longest_streak: z.object({
      unit: z.enum(["day", "week", "measurement"]),
      length: z.int(),
      start: z.string(),
      end: z.string(),
    }).nullable(),
    recent_record: z.boolean(),
    recent_records: z.array(
      z.enum(["best_day", "best_7d_mean", "best_week", "best_month", "longest_streak"]),
    ),
    withheld: Withheld.nullable(),
  }),
  run(record, args) {
    const column = findColumn(record, args.metric);
    const series = seriesOf(record, column.key);
    const first = columnExtent(series).first ?? record.today;
    const range = {
      start: Math.max(first, record.today - MAX_SPAN_DAYS + 1),
      end: record.today,
    };
    const bests = personalBests({ column, series, range, today: record.today, top: args.top });
    return {
      ...envelope(record, range, DEFINITION),
      metric: column.key,
      unit: column.unit,
      ...bests,
      withheld: bests.n === 0 ? { reason: "no_values", needed: 1, have: 0 } : null,
    };
  },
});
