/** `get_goal_progress`: goal attainment for a day, week or month. */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import { formatDay, parseDay } from "../foundation/dates.ts";
import { envelope, findColumn, seriesOf } from "../analytics/common.ts";
import { goalProgress, periodRange } from "../analytics/goal_progress.ts";
import { defineTool } from "./define_tool.ts";
import { DateString, EnvelopeFields, MetricName } from "./schemas.ts";
import { GoalSchema } from "../record/columns.ts";

const DEFINITION =
  "Within the day, ISO week or calendar month containing date (from the column's first entry up to today), met_days counts days that meet the day-level goal and eligible_days excludes skip days, unmeasured days of a neutral-missing column and a today that does not qualify yet; weekly goals add done versus the pro-rated target ceil(times × (7 − skip days) / 7), remaining_days from today (if not yet logged) to Sunday and on_track = done ≥ ⌊target × elapsed days / 7⌋ with the target still reachable; rate_30d and rate_prev_30d are the same attainment over the 30 days ending on date and the 30 before (for weekly goals: the share of complete ISO weeks that met their target).";

const Row = z.object({
  metric: z.string(),
  unit: z.string().nullable(),
  goal: GoalSchema,
  period: z.object({ start: z.string(), end: z.string() }),
  eligible_days: z.int(),
  met_days: z.int(),
  attainment_rate: z.number().nullable(),
  weekly: z.object({
    done: z.int(),
    target: z.int(),
    remaining_days: z.int(),
    on_track: z.boolean(),
  }).nullable(),
  rate_30d: z.number().nullable(),
  rate_prev_30d: z.number().nullable(),
});

/** The `get_goal_progress` tool. */
export const getGoalProgress = defineTool({
  name: "get_goal_progress",
  title: "Goal progress",
  description:
    "Goal attainment of one goal column (or all) in the day, week or month containing a date: days met of eligible, the week's progress, days remaining and whether on track, and the 30-day rate against the 30 days before. For 'am I on track this week'.",
  input: z.object({
    metric: MetricName.optional().meta({
      description: "A column with a goal (default: every column that has one).",
    }),
    period: z.enum(["day", "week", "month"]).default("week").meta({
      description: "Period containing date: day, ISO week (Monday start) or calendar month.",
    }),
    date: DateString.optional().meta({ description: "A date inside the period (default today)." }),
  }).strict(),
  output: z.object({
    ...EnvelopeFields,
    period: z.enum(["day", "week", "month"]),
    goals: z.array(Row),
  }),
  run(record, args) {
    const date = args.date !== undefined ? parseDay(args.date)! : record.today;
    if (date > record.today) {
      throw new AppError(
        "invalid_request",
        `date ${formatDay(date)} is after today (${formatDay(record.today)}).`,
      );
    }
    let columns;
    if (args.metric !== undefined) {
      const column = findColumn(record, args.metric);
      if (!column.goal) {
        throw new AppError(
          "invalid_request",
          `Column "${column.key}" has no goal; list_columns shows which columns have one.`,
        );
      }
      columns = [column];
    } else {
      columns = record.columns.filter((c) => c.goal && !c.archived);
    }
    return {
      ...envelope(record, periodRange(args.period, date), DEFINITION),
      period: args.period,
      goals: columns.map((c) =>
        goalProgress({
          column: c,
          series: seriesOf(record, c.key),
          kind: args.period,
          date,
          today: record.today,
        })
      ),
    };
  },
});
