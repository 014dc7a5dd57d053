/**
 * What the History page shows (`/app/history`, issue #11 §3): for one column, the streak as
 * `get_streak` computes it, a chart over 30 / 90 / 365 days, the year heatmap and the table of
 * days. Everything is computed from one snapshot of the member's record (loaded once, cached per
 * record version by `MemberRecords`), so a year of twelve columns costs no per-day KV reads, and
 * "today" is the member's own day (time zone and day-start hour) as the tools see it.
 */

import { z } from "zod";
import { type DayNumber, formatDay, WEEKDAY_NAMES, weekdayOf } from "../foundation/dates.ts";
import type { MemberRecords, RecordOwner } from "../record/member_records.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { seriesOf } from "../analytics/common.ts";
import { columnExtent } from "../analytics/columns.ts";
import { computeStreak, type StreakStatus, type StreakUnit } from "../analytics/streak.ts";
import { formatDayValue, shortDate } from "../charts/format.ts";
import { buildHeatmap, type CellState, cellState, type Heatmap } from "../charts/heatmap.ts";
import { buildSeriesChart, type SeriesChart } from "../charts/series_chart.ts";

/** The chart windows the page offers. */
export const HISTORY_RANGES = [30, 90, 365] as const;

/** A chart window. */
export type HistoryRange = (typeof HISTORY_RANGES)[number];

/**
 * The page's query: `?column=<key>&range=30|90|365`. Anything else falls back to the defaults
 * (first column, 30 days) rather than failing: these are links, and a stale one should still land.
 */
export const HistoryQuery = z.object({
  column: z.string().max(64).optional().catch(undefined),
  range: z.coerce.number().pipe(z.union([z.literal(30), z.literal(90), z.literal(365)]))
    .optional().catch(undefined),
});

/** One entry of the column picker. */
export interface ColumnChoice {
  key: string;
  label: string;
  archived: boolean;
  /** Position in the member's full column list: the column's colour (components/column_color). */
  colorIndex: number;
}

/** One row of the table of days. */
export interface DayRow {
  date: string;
  /** "Tue, Mar 3". */
  label: string;
  value: string;
  state: CellState;
  note: string | null;
}

/** The streak figures the page shows, straight from `computeStreak` (`get_streak`). */
export interface StreakFigures {
  current: number;
  best: number;
  unit: StreakUnit;
  status: StreakStatus;
  /** Weekly goals: completions this ISO week and its pro-rated target (`get_streak`). */
  week: { done: number; target: number } | null;
}

/** Everything the History page renders. */
export interface HistoryView {
  today: string;
  range: HistoryRange;
  columns: ColumnChoice[];
  /** `null` when the member has no columns. */
  selected: (ColumnChoice & { column: Column; hasData: boolean }) | null;
  streak: StreakFigures | null;
  chart: SeriesChart | null;
  heatmap: Heatmap | null;
  /** Most recent first, from today back to the window's start (or the first entry). */
  rows: DayRow[];
}

function dayOfYear(day: DayNumber): number {
  const iso = formatDay(day);
  return day - Date.UTC(Number(iso.slice(0, 4)), 0, 1) / 86_400_000 + 1;
}

function dayRows(record: MemberRecord, column: Column, from: DayNumber): DayRow[] {
  const series = seriesOf(record, column.key);
  const rows: DayRow[] = [];
  // Dates of the current year go without it; older ones carry it.
  const thisYear = record.today - (dayOfYear(record.today) - 1);
  for (let d = record.today; d >= from; d--) {
    const value = series.get(d);
    rows.push({
      date: formatDay(d),
      label: `${WEEKDAY_NAMES[weekdayOf(d)].slice(0, 3)}, ${shortDate(d, d < thisYear)}`,
      value: formatDayValue(column, value),
      state: cellState(column, value),
      note: record.notes.get(d) ?? null,
    });
  }
  return rows;
}

/** The History view of `record` for a parsed query (pure: no I/O). */
export function historyView(
  record: MemberRecord,
  query: z.infer<typeof HistoryQuery>,
): HistoryView {
  const range: HistoryRange = query.range ?? 30;
  const columns = record.columns.map((c, i) => ({
    key: c.key,
    label: c.label,
    archived: c.archived,
    colorIndex: i,
  }));
  const choice = columns.find((c) => c.key === query.column) ??
    columns.find((c) => !c.archived) ?? columns[0];
  const base = { today: formatDay(record.today), range, columns };
  if (!choice) {
    return { ...base, selected: null, streak: null, chart: null, heatmap: null, rows: [] };
  }

  const column = record.columns[choice.colorIndex];
  const series = seriesOf(record, column.key);
  const first = columnExtent(series).first;
  const window = { today: record.today, days: range };
  const streak = computeStreak(column, series, record.today);
  return {
    ...base,
    selected: { ...choice, column, hasData: first !== null },
    streak: {
      current: streak.current?.length ?? 0,
      best: streak.longest?.length ?? 0,
      unit: streak.unit,
      status: streak.status,
      week: streak.currentWeek
        ? { done: streak.currentWeek.done, target: streak.currentWeek.target }
        : null,
    },
    chart: buildSeriesChart(column, series, window),
    heatmap: buildHeatmap(column, series, record.today),
    rows: first === null ? [] : dayRows(record, column, Math.max(first, record.today - range + 1)),
  };
}

/** Loads the member's record once and builds the History view (the route's one lib call). */
export async function loadHistory(
  records: MemberRecords,
  owner: RecordOwner,
  query: z.infer<typeof HistoryQuery>,
): Promise<HistoryView> {
  const { record } = await records.load(owner.memberId, owner.recordVersion);
  return historyView(record, query);
}
