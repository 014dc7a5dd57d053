import assert from "node:assert/strict";
import { buildSeries, DaySeries, type DayValues } from "./day_series.ts";
import type { DayValue } from "./types.ts";

/** The Map the record was built as before issue #22: the reference `buildSeries` must match. */
function mapsOf(keys: string[], days: DayValues[]): Map<string, Map<number, DayValue>> {
  const out = new Map(keys.map((k) => [k, new Map<number, DayValue>()]));
  for (const [day, values] of days) {
    for (const [key, value] of Object.entries(values)) out.get(key)?.set(day, value);
  }
  return out;
}

/** Every read a tool makes of a series, as plain data. */
function reads(series: ReadonlyMap<number, DayValue>, probe: number[]) {
  const each: [number, DayValue][] = [];
  series.forEach((value, day) => each.push([day, value]));
  return {
    size: series.size,
    entries: [...series],
    viaEntries: [...series.entries()],
    keys: [...series.keys()],
    values: [...series.values()],
    each,
    got: probe.map((d) => [series.get(d), series.has(d)]),
  };
}

Deno.test("buildSeries() reads as the Map it replaces: values, order, size, absent days", () => {
  const days: DayValues[] = [];
  for (let day = 20_000; day < 20_400; day++) {
    if (day % 7 === 3) continue; // a missed day in every column
    const values: Record<string, DayValue> = {
      steps: 4000 + (day % 13) * 100,
      weight: 70 + (day % 10) / 4,
      walked: day % 2 === 0,
      mood: day % 11 === 0 ? "skip" : 1 + (day % 5),
      retired: 1,
    };
    if (day % 3 === 0) delete values.weight;
    days.push([day, values]);
  }
  // a column logged twice, three years apart: kept sparse
  days[0] = [days[0][0], { ...days[0][1], rare: 2.5 }];
  days.push([21_500, { rare: true }]);
  const keys = ["steps", "weight", "walked", "mood", "rare", "unused"];
  const built = buildSeries(keys, days);
  const expected = mapsOf(keys, days);
  assert.deepEqual([...built.keys()], keys);
  const probe = [19_999, 20_000, 20_003, 20_010, 20_399, 20_400, 21_500, 30_000];
  for (const key of keys) {
    assert.deepEqual(reads(built.get(key)!, probe), reads(expected.get(key)!, probe), key);
  }
  assert.ok(built.get("steps") instanceof DaySeries);
  assert.ok(built.get("mood") instanceof DaySeries);
  assert.ok(!(built.get("rare") instanceof DaySeries), "a sparse column stays a Map");
});

/** Every day of `series` against the value stored, compared as `Object.is` does (-0 is not 0). */
function assertExact(series: ReadonlyMap<number, DayValue>, stored: [number, DayValue][]) {
  for (const [day, value] of stored) {
    assert.ok(Object.is(series.get(day), value), `day ${day}: ${series.get(day)} for ${value}`);
  }
  assert.equal(series.size, stored.length);
}

Deno.test("buildSeries() gives back every number as stored: scaled integers where exact, doubles where not", () => {
  const columns: Record<string, (i: number) => DayValue> = {
    mood: (i) => 1 + (i % 5),
    sleep: (i) => 5.5 + (i % 13) / 4,
    weight: (i) => Math.round((82 - i / 100) * 10) / 10,
    steps: (i) => 2000 + i * 37,
    big: (i) => 1e12 + i,
    thirds: (i) => i / 3,
    sums: (i) => 0.1 * (i % 10) + 0.2,
    negative: (i) => -40.125 + i / 8,
    zeroes: (i) => (i % 2 === 0 ? 0 : -0),
    flags: (i) => (i % 9 === 0 ? "skip" : i % 2 === 0),
    mixed: (i) => (i % 7 === 0 ? "skip" : i % 5 === 0 ? true : 2.75),
  };
  const days: DayValues[] = [];
  for (let i = 0; i < 1_095; i++) {
    if (i % 17 === 5) continue;
    days.push([20_000 + i, Object.fromEntries(Object.entries(columns).map(([k, f]) => [k, f(i)]))]);
  }
  const built = buildSeries(Object.keys(columns), days);
  const bytesPerDay: Record<string, number> = {};
  for (const key of Object.keys(columns)) {
    const series = built.get(key) as DaySeries;
    assertExact(series, days.map(([day, values]) => [day, values[key]]));
    bytesPerDay[key] = series.bytes / series.span;
  }
  // A code byte a day, and the narrowest exact array: 1–5 and flags in one byte more or none,
  // quarter hours and tenths of a kg in two; a third or 0.1 + 0.2 only as a double.
  assert.ok(bytesPerDay.mood < 2.5, `mood ${bytesPerDay.mood}`);
  assert.ok(bytesPerDay.flags < 1.5, `flags ${bytesPerDay.flags}`);
  assert.ok(bytesPerDay.sleep < 3.5 && bytesPerDay.weight < 3.5, JSON.stringify(bytesPerDay));
  assert.ok(bytesPerDay.thirds > 8.9 && bytesPerDay.sums > 8.9, JSON.stringify(bytesPerDay));
});
