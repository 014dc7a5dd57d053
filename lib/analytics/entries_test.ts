import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";
import { day, testColumn, testRecord } from "./_test_record.ts";
import { decodeCursor, encodeCursor, pageEntries } from "./entries.ts";

const TODAY = day("2026-03-18");
const steps = testColumn("steps", { type: "integer" });
const mood = testColumn("mood", { type: "scale" });
const record = {
  ...testRecord({
    columns: [steps, mood],
    values: {
      steps: new Map([[TODAY, 9000], [TODAY - 2, 7000]]),
      mood: new Map<DayNumber, DayValue>([[TODAY - 1, "skip"], [TODAY - 2, 4]]),
    },
  }),
  notes: new Map([[TODAY - 1, "travel day"]]),
};
const range = { start: TODAY - 4, end: TODAY };

Deno.test("encodeCursor() makes opaque base64url dates that decodeCursor() round-trips", () => {
  const cursor = encodeCursor(TODAY);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.equal(decodeCursor(cursor, range), TODAY);
});

Deno.test("decodeCursor() refuses an invalid or out-of-range cursor with invalid_request", () => {
  const invalid = (e: unknown) => e instanceof AppError && e.code === "invalid_request";
  assert.throws(() => decodeCursor("not a cursor!", range), invalid);
  assert.throws(() => decodeCursor(encodeCursor(TODAY - 10), range), invalid);
  assert.throws(() => decodeCursor(btoa("2026-02-30"), range), invalid);
});

Deno.test("pageEntries() walks every date newest first, with null for missing and skip kept", () => {
  const first = pageEntries({
    record,
    columns: [steps, mood],
    range,
    options: { limit: 2, order: "desc" },
  });
  assert.deepEqual(first.rows.map((r) => r.date), ["2026-03-18", "2026-03-17"]);
  assert.deepEqual(first.rows[0].values, { steps: 9000, mood: null });
  assert.deepEqual(first.rows[1], {
    date: "2026-03-17",
    weekday: "Tuesday",
    values: { steps: null, mood: "skip" },
    notes: "travel day",
  });
  const second = pageEntries({
    record,
    columns: [steps, mood],
    range,
    options: {
      limit: 2,
      order: "desc",
      cursor: first.nextCursor!,
    },
  });
  assert.deepEqual(second.rows.map((r) => r.date), ["2026-03-16", "2026-03-15"]);
  const last = pageEntries({
    record,
    columns: [steps, mood],
    range,
    options: {
      limit: 2,
      order: "desc",
      cursor: second.nextCursor!,
    },
  });
  assert.deepEqual(last.rows.map((r) => r.date), ["2026-03-14"]);
  assert.equal(last.nextCursor, null);
});

Deno.test("pageEntries() in ascending order starts at the range start", () => {
  const page = pageEntries({
    record,
    columns: [steps],
    range,
    options: { limit: 31, order: "asc" },
  });
  assert.equal(page.rows[0].date, "2026-03-14");
  assert.equal(page.rows.length, 5);
  assert.equal(page.nextCursor, null);
});
