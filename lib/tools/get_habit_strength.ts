/** `get_habit_strength`: Loop-style habit strength of one column. */

import { z } from "zod";
import { formatDay } from "../foundation/dates.ts";
import { envelope, findColumn, resolveWindow, round, seriesOf } from "../analytics/common.ts";
import { type HabitStrength, habitStrength, scoreAt } from "../analytics/habit_strength.ts";
import { daysWord } from "../analytics/_wording.ts";
import { defineTool } from "./define_tool.ts";
import { Days, EnvelopeFields, MetricName, Withheld } from "./schemas.ts";

const DEFINITION =
  "Loop Habit Tracker's score s_d = s_(d−1)·m + v_d·(1 − m) with m = 0.5^(√f / 13) (f = times per day of the goal, 1 for daily goals), starting from 0 before the column's first entry, where v_d = min(1, qualifying days in the trailing goal window / times) or min(1, value / target) for a daily at-least goal, skip days (and unmeasured days of a neutral-missing column) leave s unchanged, other missing days count 0 — a logging gap lowers the score like a lapse, and missing_days says how many days did — and today counts only once it qualifies, so a perfect daily record reaches ≈80 % after 30 days, ≈96 % after 60 and ≈99 % after 90.";

/** Says how days without an entry entered the score (issue #12: a logging gap is not silent). */
function missingNote(s: HabitStrength): string {
  if (s.missingPolicy === "left_out") {
    return "Days without an entry are left out (this metric is a spot measurement), and skipped " +
      "days leave the score unchanged.";
  }
  if (s.missingCounted === 0) {
    return "Every day since the first entry has an entry or a skip, so no logging gap lowered " +
      "the score.";
  }
  return `${daysWord(s.missingCounted)} without an entry since the first one ` +
    `(${s.missingCountedLast30} in the last 30 days) counted as missed: a logging gap lowers ` +
    "the score just as a lapse would. Log a skip for days that should not count.";
}

/** The `get_habit_strength` tool. */
export const getHabitStrength = defineTool({
  name: "get_habit_strength",
  title: "Habit strength",
  description:
    "A 0–1 habit-strength score (Loop Habit Tracker's formula) that rises with consistency and decays slowly after lapses, its 7- and 30-day change, optionally the daily series. For 'how established is this habit'; a streak resets on one miss.",
  input: z.object({
    metric: MetricName,
    include_series: z.boolean().default(false).meta({
      description: "Also return the daily score series for the last `days` days.",
    }),
    days: Days(90).meta({
      description: "Length of the returned series in days ending today.",
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
    missing_days: z.object({
      policy: z.enum(["counted_as_missed", "left_out"]),
      counted_as_missed: z.int(),
      counted_as_missed_last_30_days: z.int(),
    }).meta({
      description: "Days with no entry: counted as missed in the score (v = 0, so a " +
        "logging gap reads as a lapse) or left out (neutral-missing columns).",
    }),
    note: z.string(),
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
      missing_days: {
        policy: s.missingPolicy,
        counted_as_missed: s.missingCounted,
        counted_as_missed_last_30_days: s.missingCountedLast30,
      },
      note: missingNote(s),
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
