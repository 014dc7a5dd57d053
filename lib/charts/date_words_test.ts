import assert from "node:assert/strict";
import { dateWords, dayTitle } from "../../components/dates.ts";

/** A day written by ICU directly, with no text kept (the independent recomputation). */
function fresh(day: string, locale: "en-GB" | "en-US"): string {
  const text = new Intl.DateTimeFormat(locale, {
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  }).format(Date.parse(`${day}T00:00:00Z`));
  return locale === "en-GB" ? text.replace(/^(\p{L}+day),/u, "$1") : text;
}

const dayAt = (i: number) =>
  new Date(Date.UTC(1970, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);

Deno.test("dayTitle(): a day written again reads as ICU writes it, in its own locale, before and after the kept texts are emptied", () => {
  const sample = ["2026-11-22", "2024-02-29", "1999-12-31"];
  for (let round = 0; round < 2; round++) {
    for (const day of sample) {
      assert.equal(dayTitle(day, "en-GB"), fresh(day, "en-GB"));
      assert.equal(dayTitle(day, "en-US"), fresh(day, "en-US"));
      assert.equal(dateWords("en-US").weekdayDate(day, true), fresh(day, "en-US"));
    }
    // more distinct days than are kept: the texts are emptied and written again
    for (let i = 0; i < 25_000; i++) assert.equal(dayTitle(dayAt(i), "en-GB").length > 0, true);
  }
  assert.equal(dayTitle("2026-11-22", "en-GB"), "Sunday 22 November 2026");
  assert.equal(dayTitle("2026-11-22", "en-US"), "Sunday, November 22, 2026");
  assert.equal(dayTitle("not a day", "en-GB"), "not a day");
});
