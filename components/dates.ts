/** Dates as members read them (English, the member's own calendar day: no time-zone shifts). */

const LONG = new Intl.DateTimeFormat("en-GB", {
  weekday: "long",
  day: "numeric",
  month: "long",
  year: "numeric",
  timeZone: "UTC",
});

/** `2026-11-22` → `Sunday 22 November 2026`. */
export function dayTitle(day: string): string {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) ? day : LONG.format(ms).replace(",", "");
}
