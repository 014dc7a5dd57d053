/**
 * Member-local calendar dates as integer day numbers (days since 1970-01-01). Analytics walk days
 * by adding 1, which is exact and fast; strings appear only at the edges (`YYYY-MM-DD`).
 */

import { z } from "zod";

/** A calendar date as days since 1970-01-01. Not an instant: it carries no time zone. */
export type DayNumber = number;

const MS_PER_DAY = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses `YYYY-MM-DD` into a day number, or returns `null` if it is not a real calendar date. */
export function parseDay(text: string): DayNumber | null {
  const m = DATE_RE.exec(text);
  if (!m) return null;
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) {
    return null;
  }
  return ms / MS_PER_DAY;
}

/** Formats a day number as `YYYY-MM-DD`. */
export function formatDay(day: DayNumber): string {
  // Civil-from-days (H. Hinnant) instead of a Date per call: tools format many dates on the hot
  // path (get_streak) and this is ~8× faster. Years outside 1000–9999 take the Date path so the
  // output stays identical to toISOString's.
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  if (y < 1000 || y > 9999) return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
  return `${y}-${m < 10 ? "0" : ""}${m}-${d < 10 ? "0" : ""}${d}`;
}

/** ISO weekday of a day: 0 = Monday … 6 = Sunday. (1970-01-01 was a Thursday.) */
export function weekdayOf(day: DayNumber): number {
  return (((day + 3) % 7) + 7) % 7;
}

/** English weekday names indexed by `weekdayOf`. */
export const WEEKDAY_NAMES = [
  "Monday",
  "Tuesday",
  "Wednesday",
  "Thursday",
  "Friday",
  "Saturday",
  "Sunday",
] as const;

/** The Monday that starts the ISO week containing `day`. */
export function isoWeekStart(day: DayNumber): DayNumber {
  return day - weekdayOf(day);
}

/** First day of the calendar month containing `day`. */
export function monthStart(day: DayNumber): DayNumber {
  const d = new Date(day * MS_PER_DAY);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / MS_PER_DAY;
}

/** First day of the month after the one containing `day`. */
export function nextMonthStart(day: DayNumber): DayNumber {
  const d = new Date(day * MS_PER_DAY);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / MS_PER_DAY;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether `timeZone` is an IANA zone this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** IANA time zone known to the runtime. */
export const TimeZone = z.string().min(1).max(64).refine(
  isValidTimeZone,
  "Unknown IANA time zone.",
);

/**
 * The member-local calendar date at instant `ms` in `timeZone`, after shifting by
 * `dayStartOffsetHours` (a day that "starts" at 04:00 keeps 01:00 on the previous date).
 */
export function localDay(ms: number, timeZone: string, dayStartOffsetHours = 0): DayNumber {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    formatters.set(timeZone, fmt);
  }
  const shifted = ms - dayStartOffsetHours * 3_600_000;
  return parseDay(fmt.format(new Date(shifted)))!;
}

/**
 * The zone arithmetic of wall-clock times (issue #24, reminders): the zone's offset at an instant, and
 * the instant of a wall time on a calendar day. A time in a spring-forward gap falls one offset later.
 */
const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at instant `ms`, in ms (positive east of Greenwich). */
export function zoneOffsetMs(ms: number, timeZone: string): number {
  let fmt = offsetFormatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    offsetFormatters.set(timeZone, fmt);
  }
  const p = Object.fromEntries(fmt.formatToParts(ms).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The instant of wall time `at` on the zone's calendar day `dayUtc` (that day's 00:00 UTC, ms). */
export function instantOf(dayUtc: number, at: string, timeZone: string): number {
  const [h, m] = at.split(":").map(Number);
  const wall = dayUtc + h * 3_600_000 + m * 60_000;
  const first = wall - zoneOffsetMs(wall, timeZone);
  return wall - zoneOffsetMs(first, timeZone);
}
