/**
 * What the Today page shows and accepts (`/app`, issue #11 §2): one control per active column,
 * pre-filled with what is logged on the member's own day (time zone and day-start hour), with the
 * current streak as `get_streak` computes it (one engine: `computeStreak` on the same record
 * snapshot agents read). `parseDayForm` turns the posted form into `saveEntry` values, or into
 * messages beside the fields — it never drops what the member typed.
 */

import { seriesOf } from "../analytics/common.ts";
import { MAX_NOTE_CHARS } from "../actions/proxy_actions.ts";
import {
  computeStreak,
  type StreakStatus,
  type StreakUnit,
  type TodayState,
} from "../analytics/streak.ts";
import { type DayNumber, formatDay } from "../foundation/dates.ts";
import type { MemberRecords, RecordOwner } from "../record/member_records.ts";
import { writableDay } from "../record/store.ts";
import type { Column, DayValue } from "../record/types.ts";
import { isPaused } from "../record/pauses.ts";

/** One column's row on the Today page. */
export interface TodayColumn {
  column: Column;
  /** Position in the member's full column list (for its colour). */
  index: number;
  /** What is stored for the day (`undefined`: nothing; a paused day reads `"skip"`). */
  value: DayValue | undefined;
  /** The day is in a pause of this column (lib/record/pauses.ts) and nothing is logged. */
  paused: boolean;
  streak: {
    length: number;
    unit: StreakUnit;
    status: StreakStatus;
    longest: number;
    /** Whether today is still to log ("pending") or logged short of the goal ("below_goal"). */
    todayState: TodayState;
    /** Weekly goals: completions this ISO week and its pro-rated target (`get_streak`). */
    week: { done: number; target: number } | null;
  };
}

/** The Today page's data. */
export interface TodayView {
  /** The day shown (`YYYY-MM-DD`). */
  day: string;
  /** The member's today. */
  today: string;
  isToday: boolean;
  /** The day before (always) and after (only up to today). */
  previous: string;
  next: string | null;
  columns: TodayColumn[];
  /** True when the member has columns, all archived. */
  allArchived: boolean;
  /** The day's note (`null`: none). */
  note: string | null;
}

/**
 * Loads the page for `dayParam` (default: the member's today). Throws `invalid_date` for a day
 * that is not a real date or lies after the member's today.
 */
export async function loadToday(
  records: MemberRecords,
  owner: RecordOwner,
  dayParam?: string,
): Promise<TodayView> {
  const { record } = await records.load(owner.memberId, owner.recordVersion);
  const day: DayNumber = dayParam ? writableDay(dayParam, record.today) : record.today;
  const columns: TodayColumn[] = [];
  record.columns.forEach((column, index) => {
    if (column.archived) return;
    const series = seriesOf(record, column.key);
    const s = computeStreak(column, series, record.today);
    const value = series.get(day);
    columns.push({
      column,
      index,
      value,
      paused: value === "skip" && isPaused(record.pauses, column.key, day),
      streak: {
        length: s.current?.length ?? 0,
        unit: s.unit,
        status: s.status,
        longest: s.longest?.length ?? 0,
        todayState: s.todayState,
        week: s.currentWeek ? { done: s.currentWeek.done, target: s.currentWeek.target } : null,
      },
    });
  });
  return {
    day: formatDay(day),
    today: formatDay(record.today),
    isToday: day === record.today,
    previous: formatDay(day - 1),
    next: day < record.today ? formatDay(day + 1) : null,
    columns,
    allArchived: record.columns.length > 0 && columns.length === 0,
    note: record.notes.get(day) ?? null,
  };
}

/**
 * What Today says beside "Log another day" when `?day=` names no day the member can log: a day
 * after their today, or no real date (`loadToday` threw `invalid_date` for it).
 */
export function unloggableDayMessage(asked: string, today: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(asked) && asked > today) {
    return `${asked} is after today (${today}): pick today or an earlier day.`;
  }
  return `“${asked}” is not a date: pick a day, written YYYY-MM-DD.`;
}

/**
 * Whether a column's day gets a "Clear" button: a skip, a yes/no answer or a scale choice, which
 * the control itself cannot take back (an emptied number field clears already). Not on a paused
 * day: its skip comes from the pause, which Clear cannot take back (Pauses can).
 */
export function offersClear(col: TodayColumn): boolean {
  if (col.value === undefined || col.paused) return false;
  return col.value === "skip" || col.column.type === "boolean" || col.column.type === "scale";
}

/** The form field of a column's value. */
export function valueField(key: string): string {
  return `v.${key}`;
}

/** The hidden marker sent with a checkbox, so an unticked box is told from an absent one. */
export function shownField(key: string): string {
  return `shown.${key}`;
}

/** What the member typed, by column key, to re-show after an error. */
export type TypedValues = Record<string, string>;

/** The outcome of reading a posted day form. */
export interface DayForm {
  /** `saveEntry` values: only columns whose value changed (`null` clears). */
  values: Record<string, DayValue | null>;
  /** The new note when it changed (`null` clears it), else `undefined`. */
  note?: string | null;
  /** Messages by column key (`note` for the note). */
  errors: Record<string, string>;
  typed: TypedValues;
}

/** `HH:MM` (24 h) → minutes after midnight. */
function minutesOf(text: string): number | null {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?$/.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** A typed number: `7.5`, `7,5`, ` 8 `; `null` when it is not one. */
function numberOf(text: string): number | null {
  const t = text.trim().replace(/^([+-]?\d*),(\d+)$/, "$1.$2");
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** One column's posted text → its new value, `undefined` (unchanged) or an error message. */
function readValue(
  col: TodayColumn,
  text: string | undefined,
  shown: boolean,
): { value?: DayValue | null; error?: string } {
  const { column, value: stored } = col;
  if (column.type === "boolean") {
    if (text !== undefined) return { value: true };
    // An unticked box (sent with its `shown.<key>` marker) turns a "yes" into "no"; on a day with
    // nothing logged it logs nothing.
    return shown && stored === true ? { value: false } : {};
  }
  // A field the form did not send is left alone; an emptied one clears the day's number.
  if (text === undefined) return {};
  const t = text.trim();
  if (t === "") return typeof stored === "number" ? { value: null } : {};
  if (column.type === "time_of_day") {
    const minutes = minutesOf(t);
    return minutes === null ? { error: "Enter a time as HH:MM, for example 22:30." } : {
      value: minutes,
    };
  }
  const n = numberOf(t);
  if (n === null) return { error: "Not a number. Enter digits, for example 7.5." };
  if ((column.type === "integer" || column.type === "scale") && !Number.isInteger(n)) {
    return { error: "Enter a whole number." };
  }
  return { value: n };
}

/**
 * Reads a posted day form: `v.<key>` per column (a ticked box sends `yes`), and an optional
 * `skip=<key>` from a "Skip day" button, which marks that column skipped while keeping every
 * other typed value, or `clear=<key>` from a "Clear" button, which clears that column's day. Range checks stay with `saveEntry` (one validator).
 */
export function parseDayForm(view: TodayView, form: Record<string, string>): DayForm {
  const values: Record<string, DayValue | null> = {};
  const errors: Record<string, string> = {};
  const typed: TypedValues = {};
  for (const col of view.columns) {
    const key = col.column.key;
    const text = form[valueField(key)];
    if (text !== undefined) typed[key] = text.slice(0, 100);
    if (form.skip === key) {
      values[key] = "skip";
      continue;
    }
    // "Clear" (issue #25, defect 8): back to nothing logged — `saveEntry`'s `null`.
    if (form.clear === key) {
      if (col.value !== undefined) values[key] = null;
      continue;
    }
    const read = readValue(col, text, form[shownField(key)] !== undefined);
    if (read.error) errors[key] = read.error;
    else if (read.value !== undefined && read.value !== col.value) values[key] = read.value;
  }
  const out: DayForm = { values, errors, typed };
  if (form.note !== undefined) {
    const note = form.note.replace(/\r\n/g, "\n").trim();
    if (note.length > MAX_NOTE_CHARS) {
      errors.note = `At most ${MAX_NOTE_CHARS} characters (this one has ${note.length}).`;
      typed.note = note.slice(0, MAX_NOTE_CHARS * 2);
    } else if (note !== (view.note ?? "")) out.note = note === "" ? null : note;
  }
  return out;
}
