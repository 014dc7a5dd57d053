/**
 * Raw day-by-day values (`get_entries`), paged with an opaque cursor. The cursor is the base64url
 * of the next date to return; it is validated against the requested range so a cursor from another
 * query cannot silently skip or repeat days.
 */

import { AppError } from "../foundation/errors.ts";
import {
  type DayNumber,
  formatDay,
  parseDay,
  WEEKDAY_NAMES,
  weekdayOf,
} from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { type DayRange, seriesOf } from "./common.ts";

/** Encodes the next date of a page as an opaque cursor (base64url, no padding). */
export function encodeCursor(day: DayNumber): string {
  return btoa(formatDay(day)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Decodes a cursor; throws `invalid_request` unless it names a date inside `range`. */
export function decodeCursor(cursor: string, range: DayRange): DayNumber {
  let text: string;
  try {
    text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    text = "";
  }
  const day = parseDay(text);
  if (day === null || day < range.start || day > range.end) {
    throw new AppError(
      "invalid_request",
      "The cursor is not valid for this query; repeat the same arguments with the next_cursor of the previous page, or omit cursor to start again.",
    );
  }
  return day;
}

/** One day of `get_entries`. */
export interface EntryRow {
  date: string;
  weekday: string;
  values: Record<string, number | boolean | "skip" | null>;
  notes?: string;
}

/** Options of `pageEntries`. */
export interface PageOptions {
  limit: number;
  cursor?: string;
  order: "asc" | "desc";
}

/** One page of entries to read. */
export interface PageEntriesOptions {
  record: MemberRecord;
  columns: readonly Column[];
  range: DayRange;
  options: PageOptions;
}

/**
 * One page of rows (every date of the range, missing values as `null`), newest first for `desc`.
 * `nextCursor` is `null` on the last page.
 */
export function pageEntries(
  { record, columns, range, options }: PageEntriesOptions,
): { rows: EntryRow[]; nextCursor: string | null } {
  const step = options.order === "asc" ? 1 : -1;
  let day = options.cursor !== undefined
    ? decodeCursor(options.cursor, range)
    : step === 1
    ? range.start
    : range.end;
  const inRange = (d: DayNumber) => d >= range.start && d <= range.end;
  const series = columns.map((c) => seriesOf(record, c.key));
  const rows: EntryRow[] = [];
  for (; inRange(day) && rows.length < options.limit; day += step) {
    const values: EntryRow["values"] = {};
    columns.forEach((c, i) => values[c.key] = series[i].get(day) ?? null);
    const row: EntryRow = { date: formatDay(day), weekday: WEEKDAY_NAMES[weekdayOf(day)], values };
    const note = record.notes.get(day);
    if (note !== undefined) row.notes = note;
    rows.push(row);
  }
  return { rows, nextCursor: inRange(day) ? encodeCursor(day) : null };
}
