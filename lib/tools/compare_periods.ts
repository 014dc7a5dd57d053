/** `compare_periods`: compare a metric between any two date ranges (domain-anchors §3.2 #11). */

import { z } from "zod";
import { DirectionSchema } from "../record/columns.ts";
import type { Column } from "../record/types.ts";
import { formatDay } from "../foundation/dates.ts";
import { type DayRange, envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import {
  COMPARE_ALPHA,
  comparePeriodValues,
  MIN_EFFECT_G,
  MIN_PERIOD_VALUES,
  type PeriodSummary,
} from "../analytics/compare.ts";
import { reportP } from "../analytics/adjust.ts";
import { clockLevel, isClock, withClockDefinition } from "../analytics/circular.ts";
import { roundOrNull } from "../analytics/_wording.ts";
import { AppError } from "../foundation/errors.ts";
import { defineTool } from "./define_tool.ts";
import {
  DateString,
  EnvelopeFields,
  Logging,
  loggingOut,
  MetricName,
  PValue,
  Withheld,
} from "./schemas.ts";
import { loggingPattern } from "../analytics/logging_pattern.ts";

const Input = z.object({
  metric: MetricName,
  a_start: DateString.meta({
    description: "First day of period A, e.g. the period after a change.",
  }),
  a_end: DateString.meta({ description: "Last day of period A." }),
  b_start: DateString.optional().meta({
    description: "First day of period B; default: the equally long window just before A.",
  }),
  b_end: DateString.optional().meta({
    description: "Last day of period B; give it together with b_start.",
  }),
}).strict();

const Period = z.object({
  start: z.string(),
  end: z.string(),
  mean: z.number().nullable(),
  median: z.number().nullable(),
  n: z.int(),
});

const Output = z.object({
  ...EnvelopeFields,
  metric: z.string(),
  unit: z.string().nullable(),
  direction: DirectionSchema,
  a: Period,
  b: Period,
  delta: z.number().nullable(),
  delta_pct: z.number().nullable(),
  effect_size_g: z.number().nullable(),
  n_eff: z.number().nullable().meta({
    description: "Independent days the comparison is worth, given the values' autocorrelation " +
      "(each period's mean and the weekday rhythm removed first).",
  }),
  p_value: PValue.nullable(),
  p_text: z.string(),
  verdict: z.enum([
    "a_better",
    "a_worse",
    "a_higher",
    "a_lower",
    "no_clear_difference",
    "insufficient_data",
  ]),
  logging: Logging,
  withheld: Withheld.optional(),
});

/** A period as reported. */
function periodOut(column: Column, s: PeriodSummary) {
  return {
    start: formatDay(s.range.start),
    end: formatDay(s.range.end),
    mean: roundOrNull(clockLevel(column, s.mean)),
    median: roundOrNull(clockLevel(column, s.median)),
    n: s.n,
  };
}

/** The `compare_periods` tool. */
export const comparePeriods = defineTool({
  name: "compare_periods",
  title: "Compare two periods",
  description:
    "A metric in period A against period B (default: the equally long window just before A), " +
    "e.g. after and before a change or a vacation: means, medians, Hedges g, a Mann–Whitney p " +
    "and a verdict read through the metric's direction.",
  input: Input,
  output: Output,
  run(record, args) {
    const column = findColumn(record, args.metric);
    const a = resolveWindow(record, { start: args.a_start, end: args.a_end }, 1);
    if ((args.b_start === undefined) !== (args.b_end === undefined)) {
      throw new AppError("invalid_request", "Give both b_start and b_end, or neither.");
    }
    const length = a.end - a.start + 1;
    const b: DayRange = args.b_start !== undefined
      ? resolveWindow(record, { start: args.b_start, end: args.b_end }, 1)
      : { start: a.start - length, end: a.start - 1 };
    if (b.start <= a.end && a.start <= b.end) {
      throw new AppError("invalid_request", "Periods A and B overlap; a day can only be in one.", {
        details: { a: [args.a_start, args.a_end], b: [formatDay(b.start), formatDay(b.end)] },
      });
    }
    const c = comparePeriodValues({ record, column, a, b });
    const delta = c.a.mean - c.b.mean;
    const enough = c.verdict !== "insufficient_data";
    const p = reportP(enough ? c.p : NaN);
    const definition = `Mean and median of logged values (skips and missing excluded) in A ` +
      `(${args.a_start}…${args.a_end}) and B (${formatDay(b.start)}…${formatDay(b.end)}); ` +
      `delta = A − B; Hedges g with the exact small-sample correction; two-sided Mann–Whitney U ` +
      `(normal approximation, tie and continuity corrected) with z scaled by √(n_eff/n), n_eff ` +
      `from the autocorrelation of the values after removing each period's mean and the weekday ` +
      `means (an approximation for autocorrelated days); p to two significant digits, ` +
      `"< 0.001" below; a verdict other than ` +
      `no_clear_difference needs p < ${COMPARE_ALPHA} and |g| ≥ ${MIN_EFFECT_G}, read through ` +
      `the column's direction; needs ≥ ${MIN_PERIOD_VALUES} values in each period.`;
    return {
      ...envelope(record, a, withClockDefinition(column, definition)),
      metric: column.key,
      unit: column.unit,
      direction: column.direction,
      a: periodOut(column, c.a),
      b: periodOut(column, c.b),
      delta: roundOrNull(delta),
      // a percentage of a clock time means nothing (00:00 is not zero of anything)
      delta_pct: c.b.mean === 0 || isClock(column)
        ? null
        : roundOrNull((delta / Math.abs(c.b.mean)) * 100, 1),
      effect_size_g: enough ? roundOrNull(c.g, 2) : null,
      n_eff: enough ? roundOrNull(c.nEff, 1) : null,
      p_value: p.value,
      p_text: p.text,
      verdict: c.verdict,
      logging: loggingOut(
        loggingPattern(record, [{ column, range: a }, { column, range: b }], {
          compared: true,
          stated: enough && c.verdict !== "no_clear_difference",
        }),
      ),
      ...(enough ? {} : {
        withheld: {
          reason: "insufficient_data",
          needed: MIN_PERIOD_VALUES,
          have: Math.min(c.a.n, c.b.n),
        },
      }),
    };
  },
});
