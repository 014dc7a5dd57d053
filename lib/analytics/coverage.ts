/**
 * Data coverage (`get_data_coverage`): how completely each column is logged, its last entry and
 * longest gap, so a coach knows which numbers it can trust (domain-anchors §3.3 "Coverage").
 */

import { type DayNumber, formatDay } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { columnExtent } from "./columns.ts";
import { type DayRange, round, seriesOf } from "./common.ts";

/** One column's coverage over a window. */
export interface ColumnCoverage {
  metric: string;
  first_date: string | null;
  days_considered: number;
  days_logged: number;
  days_skipped: number;
  completeness: number | null;
  last_logged: string | null;
  days_since_last: number | null;
  longest_gap: { start: string; end: string; length: number } | null;
}

/**
 * Coverage of `column` over `range`, counted from the column's first entry. A today with no entry
 * yet is pending, not a gap: the window then ends yesterday for this column.
 */
export function columnCoverage(
  record: MemberRecord,
  column: Column,
  range: DayRange,
): ColumnCoverage {
  const series = seriesOf(record, column.key);
  const extent = columnExtent(series);
  const from = extent.first === null ? range.end + 1 : Math.max(range.start, extent.first);
  let to = range.end;
  if (to === record.today && !series.has(to)) to--;

  let logged = 0, skipped = 0;
  let gapStart = 0, gapLength = 0;
  let bestGap: { start: DayNumber; length: number } | null = null;
  for (let day = from; day <= to; day++) {
    const value = series.get(day);
    if (value === undefined) {
      if (gapLength === 0) gapStart = day;
      gapLength++;
      // `>=`: among equally long gaps the most recent wins.
      if (!bestGap || gapLength >= bestGap.length) bestGap = { start: gapStart, length: gapLength };
      continue;
    }
    gapLength = 0;
    if (value === "skip") skipped++;
    else logged++;
  }

  let lastLogged: DayNumber | null = null;
  if (extent.first !== null) {
    for (let day = range.end; day >= extent.first; day--) {
      const value = series.get(day);
      if (value !== undefined && value !== "skip") {
        lastLogged = day;
        break;
      }
    }
  }
  const considered = Math.max(0, to - from + 1);
  const expected = considered - skipped;
  return {
    metric: column.key,
    first_date: extent.first === null ? null : formatDay(extent.first),
    days_considered: considered,
    days_logged: logged,
    days_skipped: skipped,
    completeness: expected > 0 ? round(logged / expected, 3) : null,
    last_logged: lastLogged === null ? null : formatDay(lastLogged),
    days_since_last: lastLogged === null ? null : range.end - lastLogged,
    longest_gap: bestGap
      ? {
        start: formatDay(bestGap.start),
        end: formatDay(bestGap.start + bestGap.length - 1),
        length: bestGap.length,
      }
      : null,
  };
}

/** Whether any column has an entry (value or skip) on `day`. */
function anyEntry(record: MemberRecord, day: DayNumber): boolean {
  for (const c of record.columns) if (seriesOf(record, c.key).has(day)) return true;
  return false;
}

/**
 * Days in `range` with any entry, and the logging streak: consecutive days with any entry ending
 * today, or yesterday while today has none yet (Daylio-style).
 */
export function overallCoverage(record: MemberRecord, range: DayRange) {
  let daysWithAnyEntry = 0;
  for (let day = range.start; day <= range.end; day++) {
    if (anyEntry(record, day)) daysWithAnyEntry++;
  }
  let day = anyEntry(record, record.today) ? record.today : record.today - 1;
  let streak = 0;
  while (anyEntry(record, day)) {
    streak++;
    day--;
  }
  return { days_with_any_entry: daysWithAnyEntry, logging_streak: streak };
}
