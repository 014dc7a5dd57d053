/**
 * Logging patterns (issue #20 item 7): how often a column was logged in a window, and whether two
 * compared windows were logged about equally often. A member who logs mood mostly on good days, or
 * starts to, biases every mean, trend and relationship of that column, and no test on the values
 * alone can see it; what the record does show is how often the column was logged. So the tools
 * that compare or relate values say so when a column was logged on fewer than 60 % of its days, or
 * when its logging frequency differs by more than 25 % between the windows they compare.
 *
 * The days a window counts start at the column's first logged day: days before a member began a
 * column are not days they chose not to log it. A value counts as logged; a skip does not (the
 * analyses leave skips out, so a window of skips holds no evidence).
 */

import type { DayNumber } from "../foundation/dates.ts";
import { formatDay } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";

/** Below this share of days logged a column reads as sparsely logged. */
export const LOW_LOGGING_SHARE = 0.6;
/** Compared windows whose logging frequencies differ by more than this (relative) are unlike. */
export const MAX_FREQUENCY_CHANGE = 0.25;
/**
 * A stated difference (a trend, a better period) between windows whose logging frequencies differ
 * by more than this carries the note too: with a member who logs mostly good days, a drop of
 * 10–25 % is already enough to move a mean (issue #20's seeded members: see logging_pattern_test.ts).
 */
export const NOTED_FREQUENCY_CHANGE = 0.1;
/** A window with fewer countable days than this gives no share (too short to read a habit from). */
const MIN_COUNTED_DAYS = 7;

/** How often one column was logged in one window. */
export interface WindowLogging {
  column: Column;
  range: DayRange;
  /** Days with a value (skips and missing days are not logged). */
  daysLogged: number;
  /** Days of the window from the column's first logged day up to today. */
  daysCounted: number;
  /** daysLogged / daysCounted; NaN when fewer than 7 days count. */
  share: number;
}

/** What a tool's answer says about how its columns were logged. */
export interface LoggingPattern {
  windows: WindowLogging[];
  /** Some window's share is below 60 %. */
  lowShare: boolean;
  /** Relative difference of the compared windows' shares, |a − b| / max(a, b); NaN if none. */
  frequencyChange: number;
  /** frequencyChange above 25 %: the compared windows were not logged alike. */
  frequencyChanged: boolean;
  /** One plain sentence, or null when there is nothing to say. */
  note: string | null;
}

/** The first day `column` has a value, or null. */
function firstLoggedDay(record: MemberRecord, column: Column): DayNumber | null {
  let first: DayNumber | null = null;
  for (const [day, value] of record.values.get(column.key) ?? []) {
    if (value !== "skip" && (first === null || day < first)) first = day;
  }
  return first;
}

/** How often `column` was logged in `range` (see the module comment for which days count). */
export function windowLogging(
  record: MemberRecord,
  column: Column,
  range: DayRange,
): WindowLogging {
  const first = firstLoggedDay(record, column);
  const start = first === null ? range.end + 1 : Math.max(range.start, first);
  const end = Math.min(range.end, record.today);
  const values = record.values.get(column.key);
  let daysLogged = 0;
  for (let d = start; d <= end; d++) {
    const v = values?.get(d);
    if (v !== undefined && v !== "skip") daysLogged++;
  }
  const daysCounted = Math.max(0, end - start + 1);
  const share = daysCounted >= MIN_COUNTED_DAYS ? daysLogged / daysCounted : NaN;
  return { column, range, daysLogged, daysCounted, share };
}

/**
 * The logging pattern of the windows a tool read. With `compared`, the first two windows are the
 * two a comparison sets against each other (one column, two periods), and their shares are
 * compared.
 *
 * @param record the member record
 * @param windows each column and window the answer rests on
 * @example
 * ```ts
 * const current = { start: today - 89, end: today }, previous = { start: today - 179, end: today - 90 };
 * loggingPattern(record, [{ column: mood, range: current }, { column: mood, range: previous }], { compared: true });
 * ```
 */
export function loggingPattern(
  record: MemberRecord,
  windows: Array<{ column: Column; range: DayRange }>,
  options: { compared?: boolean; stated?: boolean } = {},
): LoggingPattern {
  const logged = windows.map((w) => windowLogging(record, w.column, w.range));
  const lowShare = logged.some((w) => w.share < LOW_LOGGING_SHARE);
  const [a, b] = logged;
  const frequencyChange = options.compared && a && b
    ? Math.abs(a.share - b.share) / Math.max(a.share, b.share)
    : NaN;
  const frequencyChanged = frequencyChange > MAX_FREQUENCY_CHANGE;
  const pattern = { windows: logged, lowShare, frequencyChange, frequencyChanged, note: null };
  return { ...pattern, note: loggingNote(pattern, options.stated ?? false) };
}

/**
 * The same pattern once the answer is known: when it states a difference between the compared
 * windows (`stated`), a frequency change above 10 % is noted too.
 */
export function withStatedDifference(p: LoggingPattern, stated: boolean): LoggingPattern {
  return { ...p, note: loggingNote(p, stated) };
}

/** "logged on 53 of 90 days (59 %) from 2026-01-01 to 2026-03-31" */
function loggedText(w: WindowLogging): string {
  return `logged on ${w.daysLogged} of ${w.daysCounted} days (${Math.round(w.share * 100)} %) ` +
    `from ${formatDay(w.range.start)} to ${formatDay(w.range.end)}`;
}

/**
 * The plain sentence of a pattern, or null when every window was logged often and alike (and,
 * for a stated difference, about equally often).
 */
export function loggingNote(p: Omit<LoggingPattern, "note">, stated = false): string | null {
  const sentences: string[] = [];
  const noted = p.frequencyChanged || stated && p.frequencyChange > NOTED_FREQUENCY_CHANGE;
  if (noted) {
    const [a, b] = p.windows;
    sentences.push(
      `${a.column.label} was ${loggedText(a)} against ${loggedText(b).replace("logged ", "")}: ` +
        `its logging frequency changed by ${Math.round(p.frequencyChange * 100)} %, so the ` +
        `periods may not compare like with like (if it is logged more on some kinds of days, ` +
        `such as good ones, the change in its values may come from when it was logged).`,
    );
  }
  const sparse = p.windows.filter((w) => w.share < LOW_LOGGING_SHARE);
  const seen = new Set<string>();
  for (const w of sparse) {
    if (seen.has(w.column.key) || noted && w.column.key === p.windows[0].column.key) {
      continue;
    }
    seen.add(w.column.key);
    sentences.push(
      `${w.column.label} was ${loggedText(w)}: values logged mostly on some kinds of days ` +
        `(for example only good ones) can bias this answer.`,
    );
  }
  return sentences.length ? sentences.join(" ") : null;
}
