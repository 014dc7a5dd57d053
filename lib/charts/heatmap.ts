/**
 * A calendar heatmap of one year as Loop and GitHub draw it (webapp-anchors §1.4, §4; issue #25: a
 * calendar per year, earlier years one link away): one column per week (starting on the member's
 * first day of the week), one row per weekday, the newest week on the right, a month name over
 * the week in which a month starts. Each day is classified by
 * `dayState`, the qualification the streak and habit-strength analytics use: done = the day
 * qualifies (meets the day-level goal, or is logged when the column has no goal), missed = logged
 * below the goal, skipped = an explicit skip, no data = nothing logged.
 */

import { type DayNumber, formatDay, nextMonthStart, WEEKDAY_NAMES } from "../foundation/dates.ts";
import type { Column, DayValue } from "../record/types.ts";
import { dayState } from "../analytics/common.ts";
import type { DateWords } from "./format.ts";
import { weekStart } from "./buckets.ts";

/** A day's cell state. */
export type CellState = "done" | "missed" | "skipped" | "paused" | "none";

/** Words for each state, for the legend and the accessible name. */
export const CELL_WORDS: Record<CellState, string> = {
  done: "done",
  missed: "missed",
  skipped: "skipped",
  paused: "paused",
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
  /** The member's today when it lies in this year (outlined), else `null`. */
  today: DayNumber | null;
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

/** What one year's calendar shows. */
export interface CalendarYear {
  year: number;
  /** The member's today: later days of the year are not drawn. */
  today: DayNumber;
  /** The member's first day of the week, 0 = Sunday … 6 = Saturday (default 1, Monday). */
  weekStartsOn?: number;
  /**
   * Whether a day lies in one of the member's pauses for this column (lib/record/pauses.ts): such
   * a day, skipped because nothing was logged, is drawn and counted as paused (issue #25).
   */
  paused?: (day: DayNumber) => boolean;
  /** The member's date style (components/dates.ts `dateWords`): month names and the range. */
  dates: DateWords;
}

/** The first and last day of `year`. */
export function yearBounds(year: number): { first: DayNumber; last: DayNumber } {
  return { first: Date.UTC(year, 0, 1) / 86_400_000, last: Date.UTC(year, 11, 31) / 86_400_000 };
}

/** Month names over the week each month starts in, where there is room for them. */
function monthLabels(
  first: DayNumber,
  last: DayNumber,
  weekOf: (d: DayNumber) => number,
  dates: DateWords,
) {
  const { cell, gap, left } = HEATMAP_BOX;
  const weeks = weekOf(last) + 1;
  const months: Heatmap["months"] = [];
  let lastLabelWeek = -9;
  for (let d = first; d <= last; d = nextMonthStart(d)) {
    // A label needs about three columns of room; a month starting late in the last week would
    // otherwise print over its neighbour.
    const week = weekOf(d);
    if (week - lastLabelWeek >= 3 && week < weeks - 1) {
      months.push({ x: left + week * (cell + gap), label: dates.tick(formatDay(d), "month") });
      lastLabelWeek = week;
    }
  }
  return months;
}

/**
 * The calendar of one year (January to December, one column per week starting on the member's
 * first day of the week), drawn up to `today`; the grid keeps the whole year's width, so every
 * year's calendar has the same size and a January one is not stretched.
 */
export function buildHeatmap(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  at: CalendarYear,
): Heatmap {
  const { cell, gap, left, top } = HEATMAP_BOX;
  const pitch = cell + gap;
  const weekStartsOn = at.weekStartsOn ?? 1;
  const { first, last } = yearBounds(at.year);
  const end = Math.min(last, at.today);
  const firstWeek = weekStart(first, weekStartsOn);
  const weekOf = (d: DayNumber) => (weekStart(d, weekStartsOn) - firstWeek) / 7;
  const rowOf = (d: DayNumber) => d - weekStart(d, weekStartsOn);
  const counts: Record<CellState, number> = { done: 0, missed: 0, skipped: 0, paused: 0, none: 0 };
  const cells: HeatCell[] = [];
  for (let d = first; d <= end; d++) {
    const plain = cellState(column, series.get(d));
    const state = plain === "skipped" && at.paused?.(d) ? "paused" : plain;
    counts[state]++;
    cells.push({ day: d, x: left + weekOf(d) * pitch, y: top + rowOf(d) * pitch, state });
  }
  const weekdays = [0, 2, 4].map((row) => ({
    y: top + row * pitch + cell - 2,
    label: WEEKDAY_NAMES[(weekStartsOn + row + 6) % 7].slice(0, 3),
  }));
  const range = `${at.dates.date(formatDay(first), false)} to ${
    at.dates.date(formatDay(end), true)
  }`;
  const name = `${column.label} — calendar of ${at.year} (${range}): ` +
    (["done", "missed", "skipped", "paused", "none"] as const)
      .filter((s) => s !== "paused" || counts.paused > 0)
      .map((s) => `${CELL_WORDS[s]} ${counts[s]}`).join(", ");
  return {
    start: first,
    end,
    today: at.today >= first && at.today <= last ? at.today : null,
    width: left + (weekOf(last) + 1) * pitch,
    height: top + 7 * pitch,
    cells,
    months: monthLabels(first, last, weekOf, at.dates),
    weekdays,
    counts,
    name,
  };
}
