/**
 * Dates as members read them: ONE style on every page (issue #25; before it there were four:
 * "Sunday 22 November 2026", "Thursday 26 November", "Nov 26, 2026, 9:00 PM" and
 * "Thursday 26 November, 21:00"). English words, long month names, in the order and clock of the
 * member's locale (Settings → Preferences): `en-GB` "26 November 2026, 21:00" or `en-US`
 * "November 26, 2026, 9:00 PM". Only a chart's axis abbreviates the month ("26 Nov", "Nov 26"),
 * in the same order. A calendar day is the member's own (formatted in UTC: no shift); an instant
 * is shown in the member's time zone.
 *
 * The locale of a page: `withDateLocale` sets it around one synchronous render (the page response,
 * lib/http/web/pages.ts), so the pages need not thread it through every component; a caller outside a
 * render (a flash message) passes it. A view model built before the render (History's charts)
 * takes `dateWords(locale)` from its route instead.
 */

import type { DateLocale } from "../lib/accounts/accounts.ts";
import type { DateWords } from "../lib/charts/format.ts";

export type { DateLocale };

/** The locale when none is set: the style most pages used before issue #25. */
export const DEFAULT_DATE_LOCALE: DateLocale = "en-GB";

let current: DateLocale = DEFAULT_DATE_LOCALE;

/**
 * Runs `render` with dates written in `locale`. Sound because a render is synchronous: no other
 * request's render can run in between (one JavaScript thread), and the previous locale comes back.
 */
export function withDateLocale<T>(locale: DateLocale, render: () => T): T {
  const before = current;
  current = locale;
  try {
    return render();
  } finally {
    current = before;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The parts each style shows (the `tick` ones abbreviate the month, for a chart's axis only). */
const PARTS = {
  day: { weekday: "long", day: "numeric", month: "long", year: "numeric" },
  dayMonth: { weekday: "long", day: "numeric", month: "long" },
  weekday: { weekday: "short" },
  date: { day: "numeric", month: "long", year: "numeric" },
  dateNoYear: { day: "numeric", month: "long" },
  month: { month: "long", year: "numeric" },
  dayTick: { day: "numeric", month: "short" },
  monthTick: { month: "short" },
  monthYearTick: { month: "short", year: "numeric" },
  dateTime: { day: "numeric", month: "long", year: "numeric" },
  nextTime: { weekday: "long", day: "numeric", month: "long" },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

type Parts = keyof typeof PARTS;

/** A cached formatter (building one costs ~50 µs; a History page formats hundreds of days). */
function formatter(
  locale: DateLocale,
  timeZone: string,
  parts: Parts,
): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone}|${parts}`;
  let f = formats.get(key);
  if (!f) {
    // en-GB's 24-hour clock pads the hour ("07:15"), en-US's 12-hour one does not ("7:15 AM").
    const clock: Intl.DateTimeFormatOptions = locale === "en-GB"
      ? { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }
      : { hour: "numeric", minute: "2-digit" };
    const timed = parts === "dateTime" || parts === "nextTime";
    const options: Intl.DateTimeFormatOptions = { ...PARTS[parts], ...(timed ? clock : {}) };
    f = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    formats.set(key, f);
  }
  return f;
}

/**
 * The text of a formatter: en-GB's "Thursday, 26 November" reads without its comma (as the pages
 * always wrote it), and CLDR's " at " before a time becomes ", " (as in "26 November 2026, 21:00").
 */
function tidy(text: string, locale: DateLocale): string {
  const t = text.replace(" at ", ", ");
  return locale === "en-GB" ? t.replace(/^(\p{L}+day),/u, "$1") : t;
}

function dayMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/**
 * Days already written, by locale, style and day. A History page writes a year of calendar cells
 * and a month of rows, and each `format` is several microseconds of ICU: `deno task bench:big`'s
 * CPU profile had date formatting at 6 % of the service's time (issue #22). The text depends on
 * nothing else (UTC, a fixed locale), so it is kept; the map is emptied when full (a bound against
 * a stream of odd `?day=` values), then refills with the days pages show.
 */
const writtenDays = new Map<string, string>();
const MAX_WRITTEN_DAYS = 20_000;

/** A calendar day in one of the styles, in UTC (the day is the member's own: no shift). */
function dayIn(day: string, parts: Parts, locale: DateLocale): string {
  const key = `${locale}|${parts}|${day}`;
  let text = writtenDays.get(key);
  if (text === undefined) {
    const ms = dayMs(day);
    text = Number.isNaN(ms) ? day : tidy(formatter(locale, "UTC", parts).format(ms), locale);
    if (writtenDays.size >= MAX_WRITTEN_DAYS) writtenDays.clear();
    writtenDays.set(key, text);
  }
  return text;
}

/** `2026-11-22` → `Sunday 22 November 2026` (en-US: `Sunday, November 22, 2026`). */
export function dayTitle(day: string, locale: DateLocale = current): string {
  return dayIn(day, "day", locale);
}

/** `2026-11-26` → `Thursday 26 November` (a day in a view whose year is plain). */
export function dayMonth(day: string, locale: DateLocale = current): string {
  return dayIn(day, "dayMonth", locale);
}

/** `2026-11-26` → `Thu`. */
export function weekdayShort(day: string, locale: DateLocale = current): string {
  return dayIn(day, "weekday", locale);
}

/** `2026-11-26` → `26 November 2026`, or `26 November` without the year (en-US: `November 26`). */
export function dayDate(day: string, withYear = true, locale: DateLocale = current): string {
  return dayIn(day, withYear ? "date" : "dateNoYear", locale);
}

/** `2026-11-26` → `November 2026` (the month the day lies in). */
export function monthTitle(day: string, locale: DateLocale = current): string {
  return dayIn(day, "month", locale);
}

/**
 * A chart axis' label, where a phone leaves room for a few letters only: `26 Nov` (en-US
 * `Nov 26`), `Nov`, or `Nov 2026`. The month is abbreviated as the locale abbreviates it (en-GB
 * writes September `Sept`); the order is the locale's, as everywhere else.
 */
export function axisDate(
  day: string,
  part: "day" | "month" | "monthYear",
  locale: DateLocale = current,
): string {
  return dayIn(
    day,
    part === "day" ? "dayTick" : part === "month" ? "monthTick" : "monthYearTick",
    locale,
  );
}

/**
 * These styles bound to `locale`, for a view model built before its page renders (the History
 * charts, lib/charts/format.ts `DateWords`): lib/ may not import this module, so the route hands
 * it down, and the page and its charts write dates the one way.
 */
export function dateWords(locale: DateLocale): DateWords {
  return {
    date: (day, withYear) => dayDate(day, withYear, locale),
    weekdayDate: (day, withYear) => withYear ? dayTitle(day, locale) : dayMonth(day, locale),
    month: (day) => monthTitle(day, locale),
    tick: (day, part) => axisDate(day, part, locale),
  };
}

/** An instant's date in the member's zone: `26 November 2026`; `Never` when there is none. */
export function dateText(
  iso: string | null,
  timeZone: string,
  locale: DateLocale = current,
): string {
  if (!iso) return "Never";
  return tidy(formatter(locale, timeZone, "date").format(new Date(iso)), locale);
}

/** An instant in the member's zone: `26 November 2026, 21:00`; `Never` when there is none. */
export function dateTimeText(
  iso: string | null,
  timeZone: string,
  locale: DateLocale = current,
): string {
  if (!iso) return "Never";
  return tidy(formatter(locale, timeZone, "dateTime").format(new Date(iso)), locale);
}

/** A coming instant (a reminder's next time): `Thursday 26 November, 21:00`, or null. */
export function nextTimeText(
  iso: string | null,
  timeZone: string,
  locale: DateLocale = current,
): string | null {
  if (!iso) return null;
  return tidy(formatter(locale, timeZone, "nextTime").format(new Date(iso)), locale);
}
