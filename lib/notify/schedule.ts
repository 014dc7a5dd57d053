/**
 * When a member's reminders are due (issue #24): each reminder is a wall-clock time ("21:00") in
 * the member's time zone; its next instant is found with `Intl` (the zone's offset at that moment,
 * so daylight-saving changes move the instant, not the wall time). A time that does not exist on a
 * day (a spring-forward gap) falls one offset later, as most calendars do.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

/** `HH:MM`, 00:00–23:59. */
export const WALL_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

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
  const wall = dayUtc + h * 3_600_000 + m * MINUTE;
  const first = wall - zoneOffsetMs(wall, timeZone);
  return wall - zoneOffsetMs(first, timeZone);
}

/** The zone's calendar day of instant `ms`, as that day's 00:00 UTC (ms). */
export function zoneDayOf(ms: number, timeZone: string): number {
  const local = ms + zoneOffsetMs(ms, timeZone);
  return Math.floor(local / DAY) * DAY;
}

/** The first instant after `now` at which one of `times` falls, or null for no times. */
export function nextDueAfter(
  times: readonly string[],
  now: number,
  timeZone: string,
): number | null {
  if (times.length === 0) return null;
  const today = zoneDayOf(now, timeZone);
  let best: number | null = null;
  for (let d = -1; d <= 2; d++) {
    for (const at of times) {
      const t = instantOf(today + d * DAY, at, timeZone);
      if (t > now && (best === null || t < best)) best = t;
    }
  }
  return best;
}

/** The times among `times` that fall at instant `dueAt` (to the minute). */
export function timesAt(times: readonly string[], dueAt: number, timeZone: string): string[] {
  const day = zoneDayOf(dueAt, timeZone);
  return times.filter((at) => Math.abs(instantOf(day, at, timeZone) - dueAt) < MINUTE);
}
