/** Column discovery (`list_columns`): each column's metadata plus the extent of its entries. */

import { type DayNumber, formatDay } from "../foundation/dates.ts";
import type { Column, DayValue, Goal, MemberRecord } from "../record/types.ts";
import { seriesOf } from "./common.ts";

/** How much of a column has been filled in. */
export interface ColumnExtent {
  /** First and last day with any entry (value or skip); `null` when the column is empty. */
  first: DayNumber | null;
  last: DayNumber | null;
  /** Days with a value (skips excluded). */
  daysLogged: number;
  /** Days explicitly skipped. */
  daysSkipped: number;
}

const cache = new WeakMap<ReadonlyMap<DayNumber, DayValue>, ColumnExtent>();

/** The extent of a column's entries (cached per snapshot map, which never changes). */
export function columnExtent(series: ReadonlyMap<DayNumber, DayValue>): ColumnExtent {
  let extent = cache.get(series);
  if (extent) return extent;
  let first = Infinity, last = -Infinity, daysLogged = 0, daysSkipped = 0;
  for (const [day, value] of series) {
    if (day < first) first = day;
    if (day > last) last = day;
    if (value === "skip") daysSkipped++;
    else daysLogged++;
  }
  extent = first === Infinity
    ? { first: null, last: null, daysLogged: 0, daysSkipped: 0 }
    : { first, last, daysLogged, daysSkipped };
  cache.set(series, extent);
  return extent;
}

/** One `list_columns` row. */
export interface ColumnRow {
  key: string;
  label: string;
  type: Column["type"];
  unit: string | null;
  scale_min: number | null;
  scale_max: number | null;
  direction: Column["direction"];
  daily_agg: Column["daily_agg"];
  goal: Goal | null;
  missing_policy: Column["missing_policy"];
  first_date: string | null;
  last_date: string | null;
  days_logged: number;
  archived: boolean;
}

/** Every column (archived ones flagged) with its entry extent, in display order. */
export function listColumnRows(record: MemberRecord): ColumnRow[] {
  return record.columns.map((c) => {
    const extent = columnExtent(seriesOf(record, c.key));
    return {
      key: c.key,
      label: c.label,
      type: c.type,
      unit: c.unit,
      scale_min: c.scale_min,
      scale_max: c.scale_max,
      direction: c.direction,
      daily_agg: c.daily_agg,
      goal: c.goal ? { ...c.goal } : null,
      missing_policy: c.missing_policy,
      first_date: extent.first === null ? null : formatDay(extent.first),
      last_date: extent.last === null ? null : formatDay(extent.last),
      days_logged: extent.daysLogged,
      archived: c.archived,
    };
  });
}

/** The earliest entry in any column (today when the record is empty). */
export function recordStart(record: MemberRecord): DayNumber {
  let start = record.today;
  for (const c of record.columns) {
    const first = columnExtent(seriesOf(record, c.key)).first;
    if (first !== null && first < start) start = first;
  }
  return start;
}
