/**
 * A one-year calendar heatmap as Loop and GitHub draw it (webapp-anchors §1.4, §4): one column per
 * ISO week (Monday first, as the weekly goals count weeks), one row per weekday, the newest week
 * on the right, a month name over the week in which a month starts. Each day is classified by
 * `dayState`, the qualification the streak and habit-strength analytics use: done = the day
 * qualifies (meets the day-level goal, or is logged when the column has no goal), missed = logged
 * below the goal, skipped = an explicit skip, no data = nothing logged.
 */

import { type DayNumber, isoWeekStart, weekdayOf } from "../foundation/dates.ts";
import type { Column, DayValue } from "../record/types.ts";
import { dayState } from "../analytics/common.ts";
import { monthName, shortDate } from "./format.ts";

/** A day's cell state. */
export type CellState = "done" | "missed" | "skipped" | "none";

/** Words for each state, for the legend and the accessible name. */
export const CELL_WORDS: Record<CellState, string> = {
  done: "done",
  missed: "missed",
  skipped: "skipped",
  none: "no data",
};

/** Cell pitch and margins in viewBox units. */
export const HEATMAP_BOX = { cell: 10, gap: 2, left: 28, top: 14 };

/** One day's square. */
export interface HeatCell {
  day: DayNumber;
  x: number;
  y: number;
  state: CellState;
}

/** Everything a heatmap component draws. */
export interface Heatmap {
  start: DayNumber;
  end: DayNumber;
  width: number;
  height: number;
  cells: HeatCell[];
  months: { x: number; label: string }[];
  weekdays: { y: number; label: string }[];
  counts: Record<CellState, number>;
  name: string;
}

/** The cell state of one day, from the analytics' day qualification. */
export function cellState(column: Column, value: DayValue | undefined): CellState {
  switch (dayState(column, value)) {
    case "qualifies":
      return "done";
    case "below_goal":
      return "missed";
    case "skip":
      return "skipped";
    case "missing":
      return "none";
  }
}

/** The heatmap of the 365 days ending `today` (the member's today). */
export function buildHeatmap(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  today: DayNumber,
): Heatmap {
  const { cell, gap, left, top } = HEATMAP_BOX;
  const pitch = cell + gap;
  const start = today - 364;
  const firstMonday = isoWeekStart(start);
  const weeks = (isoWeekStart(today) - firstMonday) / 7 + 1;
  const counts: Record<CellState, number> = { done: 0, missed: 0, skipped: 0, none: 0 };
  const cells: HeatCell[] = [];
  const months: Heatmap["months"] = [];
  let lastMonth = "", lastLabelWeek = -9;
  for (let d = start; d <= today; d++) {
    const week = (isoWeekStart(d) - firstMonday) / 7;
    const state = cellState(column, series.get(d));
    counts[state]++;
    cells.push({ day: d, x: left + week * pitch, y: top + weekdayOf(d) * pitch, state });
    const month = monthName(d);
    if (month !== lastMonth) {
      // A label needs about three columns of room; a month starting late in the first or last
      // week would otherwise print over its neighbour.
      if (week - lastLabelWeek >= 3 && week < weeks - 1) {
        months.push({ x: left + week * pitch, label: month });
        lastLabelWeek = week;
      }
      lastMonth = month;
    }
  }
  const weekdays = [["Mon", 0], ["Wed", 2], ["Fri", 4]].map(([label, row]) => ({
    y: top + (row as number) * pitch + cell - 2,
    label: label as string,
  }));
  const range = `${shortDate(start, true)} to ${shortDate(today, true)}`;
  const name = `${column.label} — calendar of the last 365 days (${range}): ` +
    (["done", "missed", "skipped", "none"] as const)
      .map((s) => `${CELL_WORDS[s]} ${counts[s]}`).join(", ");
  return {
    start,
    end: today,
    width: left + weeks * pitch,
    height: top + 7 * pitch,
    cells,
    months,
    weekdays,
    counts,
    name,
  };
}
