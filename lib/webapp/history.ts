/**
 * What the History page shows (`/app/history`, issues #11 §3 and #25): for one column, the streak
 * as `get_streak` computes it, the habit strength of `get_habit_strength`, a chart over 30 days,
 * 90 days, a year or the whole record (over 90 days a mark per week or month: lib/charts/buckets),
 * the calendar of one year with every earlier year one link away, and the days of one month.
 * Everything is computed from one snapshot of the member's record (loaded once, cached per record
 * version by `MemberRecords`), and "today" is the member's own day (time zone and day-start hour)
 * as the tools see it. A page shows at most one year of cells and one month of rows, so it stays
 * within its DOM budget however long the record is.
 */

import { z } from "zod";
import {
  type DayNumber,
  formatDay,
  monthStart,
  nextMonthStart,
  parseDay,
} from "../foundation/dates.ts";
import type { MemberRecords, RecordOwner } from "../record/member_records.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { isPaused } from "../record/pauses.ts";
import { seriesOf } from "../analytics/common.ts";
import { columnExtent } from "../analytics/columns.ts";
import { habitStrength, scoreAt } from "../analytics/habit_strength.ts";
import { computeStreak, type StreakStatus, type StreakUnit } from "../analytics/streak.ts";
import { type DateWords, formatDayValue } from "../charts/format.ts";
import { buildHeatmap, type CellState, cellState, type Heatmap } from "../charts/heatmap.ts";
import { buildSeriesChart, type SeriesChart } from "../charts/series_chart.ts";

/** The chart windows the page offers: days, or the whole record. */
export const HISTORY_RANGES = ["30", "90", "365", "all"] as const;

/** A chart window. */
export type HistoryRange = (typeof HISTORY_RANGES)[number];

/**
 * The page's query: `?column=<key>&range=30|90|365|all&year=2024&month=2024-03`. Anything else
 * falls back to the defaults (first column, 30 days, this year, this month) rather than failing:
 * these are links, and a stale one should still land.
 */
export const HistoryQuery = z.object({
  column: z.string().max(64).optional().catch(undefined),
  range: z.enum(HISTORY_RANGES).optional().catch(undefined),
  year: z.coerce.number().int().min(1000).max(9999).optional().catch(undefined),
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/).optional().catch(undefined),
});

/** Options of the view that come from the member's preferences, not from the query. */
export interface HistoryOptions {
  /** First day of the week, 0 = Sunday … 6 = Saturday (default 1, Monday). */
  weekStartsOn?: number;
  /**
   * The member's date style (components/dates.ts `dateWords(locale)`, handed down by the route):
   * every date the page shows — chart names and ticks, the calendar, the days, the months.
   */
  dates: DateWords;
}

/** One entry of the column picker. */
export interface ColumnChoice {
  key: string;
  label: string;
  archived: boolean;
  /** The column's group (issue #25): the picker lists a group's columns under its name. */
  group: string | null;
  /** Position in the member's full column list: the column's colour (components/column_color). */
  colorIndex: number;
}

/** One row of the table of days. */
export interface DayRow {
  date: string;
  /** "Tuesday 3 March" (en-GB), with the year in an earlier year (`DateWords.weekdayDate`). */
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
  /** Weekly goals: completions this week and its pro-rated target (`get_streak`). */
  week: { done: number; target: number } | null;
  /** `get_habit_strength`'s `score_pct`; `null` before the first qualifying day counts. */
  strength: number | null;
}

/** The month the table of days lists, with its neighbours (`null` past either end). */
export interface MonthChoice {
  /** "2026-11". */
  key: string;
  /** "November 2026" (`DateWords.month`). */
  label: string;
  earlier: { key: string; label: string } | null;
  later: { key: string; label: string } | null;
}

/** The state a History link keeps: which column, range, calendar year and month of days. */
export interface HistoryState {
  column: string;
  range: HistoryRange;
  year: number;
  month: string;
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
  /** The calendar's year, and every year from the first entry's to this one, newest first. */
  year: number;
  years: number[];
  month: MonthChoice | null;
  /** The month's days, most recent first, from its last day (or today) to its first (or the first entry). */
  rows: DayRow[];
}

const yearOf = (day: DayNumber) => Number(formatDay(day).slice(0, 4));
const monthOf = (day: DayNumber, dates: DateWords) => ({
  key: formatDay(day).slice(0, 7),
  label: dates.month(formatDay(day)),
});

/** A skipped day inside one of the member's pauses reads as paused (issue #25). */
function pausedOr(state: CellState, paused: boolean): CellState {
  return state === "skipped" && paused ? "paused" : state;
}

function dayRows(
  record: MemberRecord,
  column: Column,
  days: { from: DayNumber; to: DayNumber; dates: DateWords },
): DayRow[] {
  const series = seriesOf(record, column.key);
  const rows: DayRow[] = [];
  const thisYear = yearOf(record.today);
  for (let d = days.to; d >= days.from; d--) {
    const value = series.get(d);
    const date = formatDay(d);
    rows.push({
      date,
      // Dates of the current year go without it; older ones carry it.
      label: days.dates.weekdayDate(date, yearOf(d) < thisYear),
      value: formatDayValue(column, value),
      state: pausedOr(cellState(column, value), isPaused(record.pauses, column.key, d)),
      note: record.notes.get(d) ?? null,
    });
  }
  return rows;
}

/** The asked month if it lies between the first entry's month and today's, else today's. */
function monthChoice(
  asked: string | undefined,
  span: { first: DayNumber; today: DayNumber },
  dates: DateWords,
): MonthChoice {
  const parsed = asked ? parseDay(`${asked}-01`) : null;
  const lo = monthStart(span.first), hi = monthStart(span.today);
  const start = parsed !== null && parsed >= lo && parsed <= hi ? parsed : hi;
  return {
    ...monthOf(start, dates),
    earlier: start > lo ? monthOf(monthStart(start - 1), dates) : null,
    later: start < hi ? monthOf(nextMonthStart(start), dates) : null,
  };
}

/** The streak figures and habit strength of `column` (the tools' own analytics). */
function streakFigures(record: MemberRecord, column: Column): StreakFigures {
  const series = seriesOf(record, column.key);
  const streak = computeStreak(column, series, record.today);
  const strength = habitStrength(column, series, record.today);
  const score = scoreAt(strength, strength.asOf);
  return {
    current: streak.current?.length ?? 0,
    best: streak.longest?.length ?? 0,
    unit: streak.unit,
    status: streak.status,
    week: streak.currentWeek
      ? { done: streak.currentWeek.done, target: streak.currentWeek.target }
      : null,
    // rounded as get_habit_strength rounds score_pct
    strength: score === null ? null : Math.round(score * 100),
  };
}

/** The chart window of a range: "all" runs from the first entry (at least a week). */
function chartWindow(
  range: HistoryRange,
  first: DayNumber | null,
  at: { today: DayNumber; dates: DateWords },
) {
  const today = at.today;
  if (range !== "all") return { today, days: Number(range) };
  const days = Math.max(7, first === null ? 30 : today - first + 1);
  return {
    today,
    days,
    words: `all time (since ${at.dates.date(formatDay(today - days + 1), true)})`,
  };
}

function columnChoices(record: MemberRecord): ColumnChoice[] {
  return record.columns.map((c, i) => ({
    key: c.key,
    label: c.label,
    archived: c.archived,
    group: c.group ?? null,
    colorIndex: i,
  }));
}

/** The History view of `record` for a parsed query (pure: no I/O). */
export function historyView(
  record: MemberRecord,
  query: z.infer<typeof HistoryQuery>,
  options: HistoryOptions,
): HistoryView {
  const dates = options.dates;
  const weekStartsOn = options.weekStartsOn ?? 1;
  const range: HistoryRange = query.range ?? "30";
  const columns = columnChoices(record);
  const choice = columns.find((c) => c.key === query.column) ??
    columns.find((c) => !c.archived) ?? columns[0];
  const thisYear = yearOf(record.today);
  const base = { today: formatDay(record.today), range, columns, year: thisYear };
  if (!choice) {
    const none = { selected: null, streak: null, chart: null, heatmap: null, month: null };
    return { ...base, ...none, years: [thisYear], rows: [] };
  }

  const column = record.columns[choice.colorIndex];
  const series = seriesOf(record, column.key);
  const first = columnExtent(series).first;
  const firstYear = first === null ? thisYear : Math.min(thisYear, yearOf(first));
  const year = Math.max(firstYear, Math.min(thisYear, query.year ?? thisYear));
  const years = Array.from({ length: thisYear - firstYear + 1 }, (_, i) => thisYear - i);
  const window = {
    ...chartWindow(range, first, { today: record.today, dates }),
    weekStartsOn,
    dates,
  };
  const month = first === null
    ? null
    : monthChoice(query.month, { first, today: record.today }, dates);
  const monthFirst = month ? parseDay(`${month.key}-01`)! : record.today;
  return {
    ...base,
    selected: { ...choice, column, hasData: first !== null },
    streak: streakFigures(record, column),
    chart: buildSeriesChart(column, series, window),
    heatmap: buildHeatmap(column, series, {
      year,
      today: record.today,
      weekStartsOn,
      paused: (day) => isPaused(record.pauses, column.key, day),
      dates,
    }),
    year,
    years,
    month,
    rows: first === null ? [] : dayRows(record, column, {
      from: Math.max(first, monthFirst),
      to: Math.min(record.today, nextMonthStart(monthFirst) - 1),
      dates,
    }),
  };
}

/** Loads the member's record once and builds the History view (the route's one lib call). */
export async function loadHistory(
  records: MemberRecords,
  owner: RecordOwner,
  query: z.infer<typeof HistoryQuery>,
  options: HistoryOptions,
): Promise<HistoryView> {
  const { record } = await records.load(owner.memberId, owner.recordVersion);
  return historyView(record, query, options);
}
