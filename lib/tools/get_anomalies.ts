/** `get_anomalies`: unusual days against the member's own recent baseline (§3.2 #16). */

import { z } from "zod";
import { formatDay } from "../foundation/dates.ts";
import { envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import {
  BASELINE_DAYS,
  canHaveAnomalies,
  DEFAULT_THRESHOLD,
  MAD_SCALE,
  MIN_BASELINE_VALUES,
  scanAnomalies,
} from "../analytics/anomalies.ts";
import { roundOrNull } from "../analytics/_wording.ts";
import { AppError } from "../foundation/errors.ts";
import { defineTool } from "./define_tool.ts";
import { Days, EnvelopeFields, MetricName, RangeArgs } from "./schemas.ts";

const DEFAULT_DAYS = 30;

const Input = z.object({
  metric: MetricName.optional().meta({
    description: "Column to check (default: every numeric, non-yes/no, active column).",
  }),
  days: Days(DEFAULT_DAYS),
  ...RangeArgs,
  threshold: z.number().min(1).max(20).default(DEFAULT_THRESHOLD).meta({
    description: "Flag a day when its robust z-score reaches this size (Iglewicz–Hoaglin).",
  }),
}).strict();

const Output = z.object({
  ...EnvelopeFields,
  metrics: z.array(z.string()),
  threshold: z.number(),
  anomalies: z.array(z.object({
    date: z.string(),
    metric: z.string(),
    unit: z.string().nullable(),
    value: z.number(),
    baseline_median: z.number(),
    robust_z: z.number(),
    direction: z.enum(["high", "low"]),
  })),
  checked_days: z.int(),
  skipped_insufficient_baseline: z.int(),
  skipped_zero_mad: z.int(),
});

/** The `get_anomalies` tool. */
export const getAnomalies = defineTool({
  name: "get_anomalies",
  title: "Unusual days",
  description:
    "Days unusual for the member: each day's value against the median of the 28 days before " +
    "it (robust z-score, flagged at |z| ≥ 3.5 by default), for one metric or every numeric " +
    "one; yes/no metrics are not checked.",
  input: Input,
  output: Output,
  run(record, args) {
    let columns;
    if (args.metric !== undefined) {
      const column = findColumn(record, args.metric);
      if (!canHaveAnomalies(column)) {
        throw new AppError(
          "invalid_request",
          `"${column.key}" is a yes/no metric; anomalies are only defined for numbers.`,
        );
      }
      columns = [column];
    } else {
      columns = record.columns.filter((c) => !c.archived && canHaveAnomalies(c));
    }
    const range = resolveWindow(record, args, DEFAULT_DAYS);
    const scan = scanAnomalies({ record, columns, range, threshold: args.threshold });
    const definition = `For each logged day, robust z = ${MAD_SCALE} × (value − median) / MAD ` +
      `of the same metric's values in the ${BASELINE_DAYS} days before it (skips and missing ` +
      `excluded; ≥ ${MIN_BASELINE_VALUES} needed, else counted in ` +
      `skipped_insufficient_baseline); flagged when |z| ≥ ${args.threshold} ` +
      `(Iglewicz–Hoaglin); a baseline with MAD 0 flags nothing; yes/no metrics excluded.`;
    return {
      ...envelope(record, range, definition),
      metrics: columns.map((c) => c.key),
      threshold: args.threshold,
      anomalies: scan.anomalies.map((a) => ({
        date: formatDay(a.day),
        metric: a.column.key,
        unit: a.column.unit,
        value: a.value,
        baseline_median: roundOrNull(a.baselineMedian)!,
        robust_z: roundOrNull(a.z)!,
        direction: a.z > 0 ? "high" as const : "low" as const,
      })),
      checked_days: scan.checkedDays,
      skipped_insufficient_baseline: scan.skippedInsufficientBaseline,
      skipped_zero_mad: scan.skippedZeroMad,
    };
  },
});
