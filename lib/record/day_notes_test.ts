import assert from "node:assert/strict";
import { DayNotes } from "./day_notes.ts";
import { mulberry32 } from "../sandbox/synthetic_member.ts";

const NOTES = ["Ran 5 km", "Schlecht geschlafen — Träume", "睡眠不足", "🏃‍♀️ then 🍕", "a\nb"];

/** Seeded notes on random days, some days written twice (the later one stands). */
function pairs(seed: number, count: number): [number, string][] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, () => {
    const note = NOTES[Math.floor(random() * NOTES.length)].repeat(1 + Math.floor(random() * 3));
    return [20_000 + Math.floor(random() * 1_200), note];
  });
}

Deno.test("DayNotes: reads back every note a Map holds, in ascending days, whatever order they came in", () => {
  for (const seed of [1, 2, 3]) {
    const given = pairs(seed, 500);
    const map = new Map(given);
    const notes = DayNotes.of(given);
    const ascending = [...map].sort((a, b) => a[0] - b[0]);
    assert.equal(notes.size, map.size);
    assert.deepEqual([...notes], ascending);
    assert.deepEqual([...notes.keys()], ascending.map(([day]) => day));
    assert.deepEqual([...notes.values()], ascending.map(([, note]) => note));
    for (let day = 19_990; day < 21_210; day++) {
      assert.equal(notes.get(day), map.get(day), `day ${day}`);
      assert.equal(notes.has(day), map.has(day), `day ${day}`);
    }
    const visited: [number, string][] = [];
    notes.forEach((note, day) => visited.push([day, note]));
    assert.deepEqual(visited, ascending);
  }
});

Deno.test("DayNotes: an empty note is no note, and a later note for a day replaces the earlier", () => {
  const notes = DayNotes.of([[5, "first"], [3, ""], [5, "second"], [7, "x"], [7, ""]]);
  assert.deepEqual([...notes], [[5, "second"]]);
  assert.equal(notes.get(3), undefined);
  assert.equal(notes.has(7), false);
  assert.equal(DayNotes.of([]).size, 0);
  assert.equal(DayNotes.of([]).get(0), undefined);
});

Deno.test("DayNotes: bytes counts the UTF-8 kept, not the strings a Map would hold", () => {
  const empty = DayNotes.of([]).bytes;
  // "睡眠不足" is 4 characters and 12 bytes of UTF-8; each note adds its day and its end (8 bytes).
  assert.equal(DayNotes.of([[1, "睡眠不足"]]).bytes - empty, 12 + 8);
  assert.equal(DayNotes.of([[1, "ab"], [2, "cde"]]).bytes - empty, 5 + 16);
});
