/**
 * The habit list on Today (issue #24, after Loop Habit Tracker's main screen, webapp-anchors §1.3):
 * one row per active column, the last `HABIT_DAYS` days as cells (today last). A cell's post is
 * read here into the day form's own fields and parsed by `parseDayForm`, so a tap on a cell and the
 * day form save through one parser and one `saveEntry` action (DESIGN §14: nothing twice).
 */

import { type DayState, dayState, seriesOf } from "../analytics/common.ts";
import { AppError } from "../foundation/errors.ts";
import { formatDay } from "../foundation/dates.ts";
import type { MemberRecords, RecordOwner } from "../record/member_records.ts";
import type { Column, DayValue } from "../record/types.ts";
import { isPaused } from "../record/pauses.ts";
import { shownField, type TodayView, valueField } from "./today.ts";

/** How many days a row shows: a week, so a missed day of any weekday is one tap away. */
export const HABIT_DAYS = 7;

/** One day of one column. */
export interface HabitCell {
  /** `YYYY-MM-DD`. */
  day: string;
  /** What is stored (`undefined`: nothing). */
  value: DayValue | undefined;
  /** Done, short of the goal (a logged "no"), skipped, or nothing logged. */
  state: DayState;
  /** The day before's number, when there is one to repeat ("Same as yesterday"). */
  yesterday: number | null;
  /** Skipped because the day is in a pause (lib/record/pauses.ts), not by the member. */
  paused: boolean;
}

/** One column's row. */
export interface HabitRow {
  column: Column;
  /** Position in the member's full column list (for its colour). */
  index: number;
  /** Oldest first; the last cell is today. */
  cells: HabitCell[];
}

/** The list: the days shown (oldest first) and one row per active column. */
export interface HabitListView {
  today: string;
  days: string[];
  rows: HabitRow[];
}

/** Loads the list for the member's today (their zone and day-start hour, as Today does). */
export async function loadHabits(
  records: MemberRecords,
  owner: RecordOwner,
): Promise<HabitListView> {
  const { record } = await records.load(owner.memberId, owner.recordVersion);
  const first = record.today - (HABIT_DAYS - 1);
  const days: string[] = [];
  for (let d = first; d <= record.today; d++) days.push(formatDay(d));
  const rows: HabitRow[] = [];
  record.columns.forEach((column, index) => {
    if (column.archived) return;
    const series = seriesOf(record, column.key);
    const cells: HabitCell[] = [];
    for (let d = first; d <= record.today; d++) {
      const value = series.get(d);
      const before = series.get(d - 1);
      cells.push({
        day: formatDay(d),
        value,
        state: dayState(column, value),
        yesterday: typeof before === "number" ? before : null,
        paused: value === "skip" && isPaused(record.pauses, column.key, d),
      });
    }
    rows.push({ column, index, cells });
  });
  return { today: formatDay(record.today), days, rows };
}

/** The fields of a cell's form (`POST /app/habits`). */
export interface HabitPost {
  day: string;
  column: string;
  /** `yes`, `no`, `skip` or `clear` (the state the tap sets), or absent for a number. */
  set?: string;
  /** A number cell's typed value (`""` clears it). */
  value?: string;
}

/** The day asked for by a cell's form (checked against the member's today by `loadToday`). */
export function habitPostDay(form: Record<string, string>): string {
  const day = (form.day ?? "").slice(0, 40);
  if (!day) throw new AppError("invalid_request", "The cell's form names no day.");
  return day;
}

/**
 * A cell's post as the day form's fields for that one column: `set=yes` ticks the box, `set=no`
 * sends the box unticked (a stored yes becomes no), `set=skip` is the form's "Skip day",
 * `set=clear` its "Clear" (nothing logged), and a number is its `v.<key>` text. Throws `unknown_column` for a column the day does not show.
 */
export function dayFormFieldsOf(view: TodayView, form: Record<string, string>) {
  const key = form.column ?? "";
  const col = view.columns.find((c) => c.column.key === key);
  if (!col) {
    throw new AppError("unknown_column", `There is no active column "${key.slice(0, 40)}".`);
  }
  const fields: Record<string, string> = {};
  if (form.set === "skip") fields.skip = key;
  else if (form.set === "clear") fields.clear = key;
  else if (col.column.type === "boolean") {
    if (form.set !== "yes" && form.set !== "no") {
      throw new AppError(
        "invalid_request",
        "A yes/no cell sends set=yes, set=no, set=skip or set=clear.",
      );
    }
    fields[shownField(key)] = "1";
    if (form.set === "yes") fields[valueField(key)] = "yes";
  } else fields[valueField(key)] = form.value ?? "";
  return { column: col.column, fields };
}
