import assert from "node:assert/strict";
import { formatDay, parseDay } from "./dates.ts";

Deno.test("formatDay() matches Date#toISOString for every day from 1600 to 2400", () => {
  const from = parseDay("1600-01-01")!, to = parseDay("2400-12-31")!;
  for (let day = from; day <= to; day++) {
    const expected = new Date(day * 86_400_000).toISOString().slice(0, 10);
    if (formatDay(day) !== expected) assert.equal(formatDay(day), expected, `day ${day}`);
  }
});

Deno.test("formatDay() keeps toISOString's form outside years 1000-9999", () => {
  assert.equal(formatDay(parseDay("0999-12-31")!), "0999-12-31");
  assert.equal(formatDay(-1_000_000), new Date(-1_000_000 * 86_400_000).toISOString().slice(0, 10));
});

Deno.test("parseDay() and formatDay() round-trip, including leap days", () => {
  for (const text of ["2024-02-29", "2000-02-29", "2026-03-18", "1970-01-01", "2025-12-31"]) {
    assert.equal(formatDay(parseDay(text)!), text);
  }
  assert.equal(parseDay("2026-02-29"), null);
});
