/** `get_weekday_pattern`: the day-of-week pattern of a metric (domain-anchors §3.2 #12). */

import { z } from "zod";
import { DirectionSchema } from "../record/columns.ts";
import { WEEKDAY_NAMES } from "../foundation/dates.ts";
import { envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import {
  CLEAR_ETA_SQUARED,
  MIN_WEEKDAY_VALUES,
  WEEKDAY_ALPHA,
  type WeekdayGroup,
  weekdayPattern,
} from "../analytics/weekday.ts";
import { roundOrNull } from "../analytics/_wording.ts";
import { reportP } from "../analytics/adjust.ts";
import {
  clockDifference,
  clockLevel,
  isClock,
  withClockDefinition,
} from "../analytics/circular.ts";
import type { Column } from "../record/types.ts";
import { defineTool } from "./define_tool.ts";
import {
  Coverage,
  Days,
  EnvelopeFields,
  MetricName,
  PValue,
  RangeArgs,
  Withheld,
} from "./schemas.ts";

const DEFAULT_DAYS = 90;

const Input = z.object({
  metric: MetricName,
  days: Days(DEFAULT_DAYS),
  ...RangeArgs,
}).strict();

const WeekdayName = z.enum(WEEKDAY_NAMES);

const Output = z.object({
  ...EnvelopeFields,
  metric: z.string(),
  unit: z.string().nullable(),
  direction: DirectionSchema,
  n: z.int(),
  coverage: Coverage,
  overall_mean: z.number().nullable(),
  by_weekday: z.array(z.object({
    weekday: WeekdayName,
    mean: z.number().nullable(),
    n: z.int(),
    delta_vs_overall: z.number().nullable(),
  })).length(7),
  highest_weekday: WeekdayName.nullable(),
  lowest_weekday: WeekdayName.nullable(),
  best_weekday: WeekdayName.nullable(),
  worst_weekday: WeekdayName.nullable(),
  eta_squared: z.number().min(0).max(1).nullable(),
  n_eff: z.number().nullable().meta({
    description: "Independent days the test is worth (autocorrelation left after removing " +
      "weekday means and trend).",
  }),
  p_value: PValue.nullable(),
  p_text: z.string(),
  pattern_strength: z.enum(["none", "weak", "clear"]),
  withheld: Withheld.optional(),
});

/** The weekdays with the highest and lowest reported mean (first one wins a tie). */
function extremes(groups: WeekdayGroup[]) {
  let hi: WeekdayGroup | null = null, lo: WeekdayGroup | null = null;
  for (const g of groups) {
    if (Number.isNaN(g.mean)) continue;
    if (!hi || g.mean > hi.mean) hi = g;
    if (!lo || g.mean < lo.mean) lo = g;
  }
  return { hi, lo };
}

/** Best and worst weekday by the column's direction; `null` for neutral columns. */
function bestAndWorst(column: Column, groups: WeekdayGroup[]) {
  const { hi, lo } = extremes(groups);
  switch (column.direction) {
    case "higher_better":
      return { best: hi, worst: lo };
    case "lower_better":
      return { best: lo, worst: hi };
    case "target": {
      const goal = column.goal?.value;
      if (goal === null || goal === undefined) return { best: null, worst: null };
      // closest to and farthest from the goal value
      const distance = groups
        .filter((g) => !Number.isNaN(g.mean))
        .map((g) => ({
          g,
          d: Math.abs(isClock(column) ? clockDifference(g.mean, goal) : g.mean - goal),
        }))
        .sort((x, y) => x.d - y.d);
      return {
        best: distance[0]?.g ?? null,
        worst: distance[distance.length - 1]?.g ?? null,
      };
    }
    case "neutral":
      return { best: null, worst: null };
  }
}

const nameOf = (g: WeekdayGroup | null) => (g ? WEEKDAY_NAMES[g.weekday] : null);

/** The `get_weekday_pattern` tool. */
export const getWeekdayPattern = defineTool({
  name: "get_weekday_pattern",
  title: "Day-of-week pattern",
  description:
    "A metric's average on each weekday over a window (default 90 days): the highest/lowest " +
    "and best/worst weekday, η², and a Kruskal–Wallis test saying whether the weekly pattern is " +
    "clear, weak or absent.",
  input: Input,
  output: Output,
  run(record, args) {
    const column = findColumn(record, args.metric);
    const range = resolveWindow(record, args, DEFAULT_DAYS);
    const w = weekdayPattern(record, column, range);
    const { hi, lo } = extremes(w.groups);
    const { best, worst } = bestAndWorst(column, w.groups);
    const definition = `Mean of logged values (skips and missing excluded, booleans as 1/0) per ` +
      `ISO weekday; weekdays with under ${MIN_WEEKDAY_VALUES} values get mean null and are left ` +
      `out of η² (between-weekday SS / total SS) and the Kruskal–Wallis test (tie-corrected, ` +
      `chi-square p on H × n_eff/n, where n_eff is the effective number of days given the ` +
      `autocorrelation left after removing weekday means and trend — an approximation); clear if p < ${WEEKDAY_ALPHA} and η² ≥ ${CLEAR_ETA_SQUARED}, weak if ` +
      `p < ${WEEKDAY_ALPHA}, else none.`;
    return {
      ...envelope(record, range, withClockDefinition(column, definition)),
      metric: column.key,
      unit: column.unit,
      direction: column.direction,
      n: w.n,
      coverage: { days_with_value: w.n, days_in_range: range.end - range.start + 1 },
      overall_mean: roundOrNull(clockLevel(column, w.overallMean)),
      by_weekday: w.groups.map((g) => ({
        weekday: WEEKDAY_NAMES[g.weekday],
        mean: roundOrNull(clockLevel(column, g.mean)),
        n: g.n,
        delta_vs_overall: roundOrNull(g.mean - w.overallMean),
      })),
      highest_weekday: nameOf(hi),
      lowest_weekday: nameOf(lo),
      best_weekday: nameOf(best),
      worst_weekday: nameOf(worst),
      eta_squared: roundOrNull(w.etaSquared, 3),
      n_eff: roundOrNull(w.nEff, 1),
      p_value: reportP(w.p).value,
      p_text: reportP(w.p).text,
      pattern_strength: w.strength,
      ...(w.withheld ? { withheld: w.withheld } : {}),
    };
  },
});
