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
