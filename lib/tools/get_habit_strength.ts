/** `get_habit_strength`: Loop-style habit strength of one column. */

import { z } from "zod";
import { formatDay } from "../foundation/dates.ts";
import { envelope, findColumn, resolveWindow, round, seriesOf } from "../analytics/common.ts";
import { habitStrength, scoreAt } from "../analytics/habit_strength.ts";
import { defineTool } from "./define_tool.ts";
import { Days, EnvelopeFields, MetricName, Withheld } from "./schemas.ts";

const DEFINITION =
  "Loop Habit Tracker's score s_d = s_(d−1)·m + v_d·(1 − m) with m = 0.5^(√f / 13) (f = times per day of the goal, 1 for daily goals), starting from 0 before the column's first entry, where v_d = min(1, qualifying days in the trailing goal window / times) or min(1, value / target) for a daily at-least goal, skip days (and unmeasured days of a neutral-missing column) leave s unchanged, other missing days count 0 and today counts only once it qualifies, so a perfect daily record reaches ≈80 % after 30 days, ≈96 % after 60 and ≈99 % after 90.";

/** The `get_habit_strength` tool. */
export const getHabitStrength = defineTool({
  name: "get_habit_strength",
  title: "Habit strength",
  description:
    "A 0–1 habit-strength score (Loop Habit Tracker's formula) that rises with consistency and decays slowly after lapses, with its 7- and 30-day change and optionally the daily series. Use it for 'how established is this habit' rather than a streak, which resets on one miss.",
  input: z.object({
    metric: MetricName,
    include_series: z.boolean().default(false).meta({
      description: "Also return the daily score series for the last `days` days.",
    }),
    days: Days(90).meta({
      description: "Length of the returned series in days ending today (default 90, at most 366).",
    }),
  }).strict(),
  output: z.object({
    ...EnvelopeFields,
    metric: z.string(),
    unit: z.string().nullable(),
    score: z.number().nullable(),
    score_pct: z.int().nullable(),
    as_of: z.string().meta({
      description: "Last day included: today if it qualifies, else yesterday.",
    }),
    change_7d: z.number().nullable(),
    change_30d: z.number().nullable(),
    frequency: z.object({ times: z.number(), per_days: z.int() }),
    half_life_days: z.number(),
    series: z.array(z.object({ date: z.string(), score: z.number() })).optional(),
    withheld: Withheld.nullable(),
  }),
  run(record, args) {
    const column = findColumn(record, args.metric);
    const range = resolveWindow(record, { days: args.days }, 90);
    const s = habitStrength(column, seriesOf(record, column.key), record.today);
    const score = scoreAt(s, s.asOf);
    const change = (days: number) => {
      const before = s.first !== null && s.asOf - days >= s.first - 1
        ? scoreAt(s, s.asOf - days)
        : null;
      return score === null || before === null ? null : round(score - before, 3);
    };
    const result = {
      ...envelope(record, range, DEFINITION),
      metric: column.key,
      unit: column.unit,
      score: score === null ? null : round(score, 3),
      score_pct: score === null ? null : Math.round(score * 100),
      as_of: formatDay(s.asOf),
      change_7d: change(7),
      change_30d: change(30),
      frequency: { times: s.times, per_days: s.perDays },
      half_life_days: round(s.halfLifeDays, 2),
      withheld: score === null ? { reason: "no_entries", needed: 1, have: 0 } : null,
    };
    if (!args.include_series) return result;
    const series: { date: string; score: number }[] = [];
    if (s.first !== null) {
      for (let day = Math.max(range.start, s.first); day <= s.asOf; day++) {
        series.push({ date: formatDay(day), score: round(scoreAt(s, day)!, 3) });
      }
    }
    return { ...result, series };
  },
});
