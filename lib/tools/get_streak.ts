/** `get_streak`: current and longest streak of one column with the exact rule applied. */

import { z } from "zod";
import { formatDay } from "../foundation/dates.ts";
import { envelope, findColumn, seriesOf } from "../analytics/common.ts";
import { computeStreak, type Run, streakRule } from "../analytics/streak.ts";
import { defineTool } from "./define_tool.ts";
import { EnvelopeFields, MetricName } from "./schemas.ts";

const DEFINITION =
  "Walks member-local dates from the column's first entry to today: a qualifying day (a yes/no day qualifies only when yes, with or without a goal) (or, for a weekly goal, an ISO week with at least ceil(times × (7 − skip days) / 7) completions) extends the run, skip days are neutral (neither break nor count), a below-goal day breaks it and so does a missing day unless missing_policy is neutral, today (or the current week) counts only once it qualifies and never breaks the run, and longest is the longest run over the whole history with ties going to the most recent.";

const RunFields = z.object({
  length: z.int().meta({ description: "Qualifying days (or weeks, or measurements) in the run." }),
  start: z.string(),
  end: z.string(),
});

/** A run that may be empty (length 0, no dates). */
const MaybeRun = z.object({
  length: z.int(),
  start: z.string().nullable(),
  end: z.string().nullable(),
});

const Output = z.object({
  ...EnvelopeFields,
  metric: z.string(),
  unit: z.enum(["day", "week", "measurement"]).meta({ description: "What the streak counts." }),
  value_unit: z.string().nullable().meta({ description: "Unit of the column's values." }),
  rule: z.string(),
  current: MaybeRun,
  status: z.enum(["active_today", "active", "at_risk", "broken", "never_started"]),
  today_state: z.enum(["qualifies", "pending", "below_goal", "skip"]),
  current_week: z.object({
    start: z.string(),
    end: z.string(),
    done: z.int(),
    target: z.int(),
    remaining_days: z.int(),
    state: z.enum(["met", "pending", "skip"]),
  }).nullable().meta({
    description: "Weekly goals only: progress in the ISO week containing today.",
  }),
  longest: MaybeRun,
  is_record: z.boolean(),
  skipped_days_in_current: z.int(),
  last_broken: z.object({
    date: z.string(),
    reason: z.enum(["missing", "below_goal"]),
  }).nullable(),
  top_streaks: z.array(RunFields).max(5),
});

const EMPTY_RUN = { length: 0, start: null, end: null };

function fullRun(run: Run) {
  return { length: run.length, start: formatDay(run.start), end: formatDay(run.end) };
}

function runOut(run: Run | null) {
  return run ? fullRun(run) : EMPTY_RUN;
}

/** The `get_streak` tool. */
export const getStreak = defineTool({
  name: "get_streak",
  title: "Streak",
  description:
    "Current and longest streak of one column (its daily or weekly goal, else logging; yes/no counts yes days only): the rule, whether today still needs doing, the last break and the top five runs.",
  input: z.object({ metric: MetricName }).strict(),
  output: Output,
  run(record, args) {
    const column = findColumn(record, args.metric);
    const s = computeStreak(column, seriesOf(record, column.key), record.today);
    const week = s.currentWeek;
    return {
      ...envelope(record, { start: s.firstDay ?? record.today, end: record.today }, DEFINITION),
      metric: column.key,
      unit: s.unit,
      value_unit: column.unit,
      rule: streakRule(column),
      current: runOut(s.current),
      status: s.status,
      today_state: s.todayState,
      current_week: week
        ? {
          start: formatDay(week.start),
          end: formatDay(week.end),
          done: week.done,
          target: week.target,
          remaining_days: week.remainingDays,
          state: week.state,
        }
        : null,
      longest: runOut(s.longest),
      is_record: s.isRecord,
      skipped_days_in_current: s.skippedDaysInCurrent,
      last_broken: s.lastBroken
        ? { date: formatDay(s.lastBroken.date), reason: s.lastBroken.reason }
        : null,
      top_streaks: s.top.map(fullRun),
    };
  },
});
