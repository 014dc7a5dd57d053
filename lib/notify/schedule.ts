/**
 * When a member's reminders are due (issue #24): each reminder is a wall-clock time ("21:00") in
 * the member's time zone; its next instant is found with `Intl` (the zone's offset at that moment,
 * so daylight-saving changes move the instant, not the wall time). A time that does not exist on a
 * day (a spring-forward gap) falls one offset later, as most calendars do.
 */

import { instantOf, localDay } from "../foundation/dates.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;

/** `HH:MM`, 00:00–23:59. */
export const WALL_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** The first instant after `now` at which one of `times` falls, or null for no times. */
export function nextDueAfter(
  times: readonly string[],
  now: number,
  timeZone: string,
): number | null {
  if (times.length === 0) return null;
  const today = localDay(now, timeZone) * DAY;
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
  const day = localDay(dueAt, timeZone) * DAY;
  return times.filter((at) => Math.abs(instantOf(day, at, timeZone) - dueAt) < MINUTE);
}
