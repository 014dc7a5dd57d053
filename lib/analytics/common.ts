/** Helpers every tool shares: resolving a metric, a window, the result envelope, day states. */

import { AppError } from "../foundation/errors.ts";
import { type DayNumber, formatDay, parseDay } from "../foundation/dates.ts";
import type { Column, DayValue, MemberRecord } from "../record/types.ts";
import { MAX_SPAN_DAYS } from "../record/columns.ts";

/** An inclusive range of day numbers. */
/** One column and its values by day: what most analytics read. */
export interface ColumnSeries {
  column: Column;
  series: ReadonlyMap<DayNumber, DayValue>;
}

export interface DayRange {
  start: DayNumber;
  end: DayNumber;
}

/** Edit distance, for `did_you_mean`. */
function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/**
 * Returns the column `key`, or throws `unknown_metric` with up to three `did_you_mean` keys
 * (closest by edit distance, or containing the asked-for text).
 */
export function findColumn(record: MemberRecord, key: string): Column {
  const column = record.columns.find((c) => c.key === key);
  if (column) return column;
  const asked = key.toLowerCase();
  const didYouMean = record.columns
    .map((c) => ({
      key: c.key,
      score: c.key.includes(asked) || asked.includes(c.key) || c.label.toLowerCase().includes(asked)
        ? 0
        : levenshtein(asked, c.key),
    }))
    .filter((c) => c.score <= Math.max(3, Math.floor(asked.length / 2)))
    .sort((a, b) => a.score - b.score)
    .slice(0, 3)
    .map((c) => c.key);
  throw new AppError("unknown_metric", `No column is named "${key}". Call list_columns for keys.`, {
    details: { did_you_mean: didYouMean, available: record.columns.map((c) => c.key) },
  });
}

/**
 * Resolves `days` / `start` / `end` into an inclusive range: the window is
 * `[today − days + 1, today]`; explicit `start`/`end` override `days` (domain-anchors §3.1).
 * Throws `range_too_large` beyond 366 days and `invalid_request` when start is after end.
 */
export function resolveWindow(
  record: MemberRecord,
  args: { days?: number; start?: string; end?: string },
  defaultDays: number,
): DayRange {
  const end = args.end !== undefined ? parseDay(args.end)! : record.today;
  const start = args.start !== undefined
    ? parseDay(args.start)!
    : end - (args.days ?? defaultDays) + 1;
  if (start > end) {
    throw new AppError(
      "invalid_request",
      `start (${formatDay(start)}) is after end (${formatDay(end)}).`,
    );
  }
  const span = end - start + 1;
  if (span > MAX_SPAN_DAYS) {
    throw new AppError(
      "range_too_large",
      `The range spans ${span} days; at most ${MAX_SPAN_DAYS} are allowed per call.`,
      { details: { max_days: MAX_SPAN_DAYS, requested_days: span } },
    );
  }
  return { start, end };
}

/** The fields every result carries (domain-anchors §3.1 "Envelope"). */
export function envelope(record: MemberRecord, range: DayRange, definition: string) {
  return {
    timezone: record.timezone,
    today: formatDay(record.today),
    range: { start: formatDay(range.start), end: formatDay(range.end) },
    generated_at: record.now,
    definition,
  };
}

/** The values of one column (empty map for a column with no entries). */
export function seriesOf(record: MemberRecord, key: string): ReadonlyMap<DayNumber, DayValue> {
  return record.values.get(key) ?? new Map();
}

/** A day's state for qualification (domain-anchors §3.3 "Day qualification"). */
export type DayState = "qualifies" | "below_goal" | "skip" | "missing";

/**
 * Classifies one day of one column — the one place that decides whether a day is "done" for
 * streaks, the calendar, habit strength, goal progress, the overview and the coach: `skip` if
 * explicitly skipped, `missing` if absent; a yes/no value is done only when it is yes, with or
 * without a goal (a logged "no" is a logged miss, never a done day: issue #20); any other value
 * qualifies when it meets the daily goal, or, without a goal, by being logged.
 */
export function dayState(column: Column, value: DayValue | undefined): DayState {
  if (value === undefined) return "missing";
  if (value === "skip") return "skip";
  if (typeof value === "boolean") return value ? "qualifies" : "below_goal";
  const goal = column.goal;
  if (!goal) return "qualifies";
  const v = value;
  switch (goal.op) {
    case "true":
      return v === 1 ? "qualifies" : "below_goal";
    case "at_least":
      return v >= (goal.value ?? 0) ? "qualifies" : "below_goal";
    case "at_most":
      return v <= (goal.value ?? 0) ? "qualifies" : "below_goal";
    case "equals":
      return v === goal.value ? "qualifies" : "below_goal";
  }
}

/** A numeric view of a value (booleans → 1/0); `null` for skip or missing. */
export function numericValue(value: DayValue | undefined): number | null {
  if (value === undefined || value === "skip") return null;
  return typeof value === "boolean" ? (value ? 1 : 0) : value;
}

/** Rounds to `dp` decimal places (for reporting only; computations use full precision). */
export function round(x: number, dp = 2): number {
  const f = 10 ** dp;
  return Math.round(x * f) / f;
}
