import assert from "node:assert/strict";
import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";
import { day, testColumn, testRecord } from "./_test_record.ts";
import { columnCoverage, overallCoverage } from "./coverage.ts";

const TODAY = day("2026-03-18");

/** `V` value, `S` skip, `.` missing; the last character is today. */
function picture(text: string): Map<DayNumber, DayValue> {
  const out = new Map<DayNumber, DayValue>();
  [...text].forEach((ch, i) => {
    const d = TODAY - text.length + 1 + i;
    if (ch === "V") out.set(d, 1);
    if (ch === "S") out.set(d, "skip");
  });
  return out;
}

const water = testColumn("water_l");
const recordOf = (values: Record<string, Map<DayNumber, DayValue>>) =>
  testRecord({ columns: Object.keys(values).map((k) => testColumn(k)), values });

Deno.test("columnCoverage() completeness counts from the first entry, excludes skips and a pending today", () => {
  const record = recordOf({ water_l: picture("...VVSV..VV.") });
  const c = columnCoverage(record, water, { start: TODAY - 11, end: TODAY });
  assert.equal(c.first_date, "2026-03-10");
  assert.equal(c.days_considered, 8); // 03-10 … 03-17; today is pending
  assert.equal(c.days_logged, 5);
  assert.equal(c.days_skipped, 1);
  assert.equal(c.completeness, 0.714); // 5 / (8 − 1)
  assert.equal(c.last_logged, "2026-03-17");
  assert.equal(c.days_since_last, 1);
});

Deno.test("columnCoverage() the longest gap is consecutive days with no entry; ties go to the most recent", () => {
  const record = recordOf({ water_l: picture("V..V..VSV.V") });
  const c = columnCoverage(record, water, { start: TODAY - 10, end: TODAY });
  assert.deepEqual(c.longest_gap, { start: "2026-03-12", end: "2026-03-13", length: 2 });
  const none = columnCoverage(recordOf({ water_l: picture("VVSV") }), water, {
    start: TODAY - 3,
    end: TODAY,
  });
  assert.equal(none.longest_gap, null);
});

Deno.test("columnCoverage() a column that starts after the window has no completeness", () => {
  const record = recordOf({ water_l: picture("V") });
  const c = columnCoverage(record, water, { start: TODAY - 10, end: TODAY - 1 });
  assert.equal(c.completeness, null);
  assert.equal(c.days_considered, 0);
  assert.equal(c.last_logged, null);
});

Deno.test("columnCoverage() the logging streak ends today, or yesterday while today has no entry yet", () => {
  const withToday = recordOf({ a: picture("V.VVV"), b: picture("..S..") });
  assert.deepEqual(overallCoverage(withToday, { start: TODAY - 4, end: TODAY }), {
    days_with_any_entry: 4,
    logging_streak: 3,
  });
  const pending = recordOf({ a: picture("VV.VV."), b: picture("..V...") });
  assert.equal(overallCoverage(pending, { start: TODAY - 5, end: TODAY }).logging_streak, 5);
});
