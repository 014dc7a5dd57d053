import assert from "node:assert/strict";
import { parseDaylio } from "./import_daylio.ts";
import { parseLoop, readLoopFiles } from "./import_loop.ts";
import { mapColumns } from "./import_plan.ts";
import { keyFromName, type ParsedImport, type ParsedRow, uniqueNames } from "./import_source.ts";
import { csvSafeText, csvTextOf } from "./transfer.ts";
import { readZipTexts } from "./zip.ts";

const fixture = (name: string) =>
  Deno.readFileSync(new URL(`../../tests/fixtures/imports/${name}`, import.meta.url));
const text = (name: string) => new TextDecoder().decode(fixture(name));
/** A row's values by source column name (rows hold them by position). */
const named = (parsed: ParsedImport, row: ParsedRow) =>
  Object.fromEntries([...row.values].map(([i, v]) => [parsed.columns[i].source, v]));

Deno.test("parseLoop() reads named codes (v2.3.1) with Habits.csv types, units and targets", () => {
  const parsed = parseLoop({
    checkmarks: text("loop_Checkmarks.csv"),
    habits: text("loop_Habits.csv"),
  });
  assert.deepEqual(parsed.columns.map((c) => [c.source, c.key, c.type, c.unit]), [
    ["Meditate", "meditate", "boolean", null],
    ["Run", "run", "number", "km"],
    ["Gym", "gym", "boolean", null],
  ]);
  assert.deepEqual(parsed.columns[1].goal, { op: "at_least", value: 5, per: "day", times: null });
  assert.deepEqual(parsed.columns[2].goal, { op: "true", value: null, per: "week", times: 3 });
  assert.equal(parsed.sourceRows, 7);
  // 2026-11-12 is all UNKNOWN: no row. YES_AUTO writes nothing; numeric ÷ 1000; SKIP → skip.
  assert.deepEqual(parsed.rows.map((r) => [r.date, named(parsed, r)]), [
    ["2026-11-16", { Meditate: true, Run: 5.2, Gym: true }],
    ["2026-11-15", { Meditate: false, Run: 0 }],
    ["2026-11-14", { Meditate: "skip", Run: "skip", Gym: false }],
    ["2026-11-13", { Meditate: true }],
    ["2026-11-11", { Meditate: true, Run: 7.5, Gym: true }],
    ["2026-11-10", { Meditate: true, Run: 10, Gym: false }],
  ]);
  assert.deepEqual(parsed.errors, []);
  assert.ok(parsed.notices.some((n) => n.includes("2 YES_AUTO cells")));
});

Deno.test("parseLoop() reads integer codes (≤ v2.3.0) and guesses numeric habits alone", () => {
  const parsed = parseLoop({ checkmarks: text("loop_checkmarks_v230.csv") });
  assert.deepEqual(parsed.columns.map((c) => c.type), ["boolean", "number"]);
  assert.deepEqual(parsed.rows.map((r) => named(parsed, r)), [
    { Meditate: true, Run: 5.2 },
    { Meditate: false, Run: 0 },
    { Meditate: "skip", Run: "skip" },
    { Meditate: true },
  ]);
});

Deno.test("parseLoop() reports a cell that is no entry code with its line", () => {
  const parsed = parseLoop({ checkmarks: text("loop_errors.csv") });
  assert.equal(parsed.errors.length, 1);
  assert.equal(parsed.errors[0].line, 3);
  assert.match(parsed.errors[0].reason, /"MAYBE" is not a Loop entry/);
  assert.equal(parsed.rows.length, 3); // dates are checked later, against the member's today
  assert.throws(
    () => parseLoop({ checkmarks: "Day,Run\n2026-11-01,1\n" }),
    /first header cell must be "Date"/,
  );
});

Deno.test("readLoopFiles() takes Habits.csv and Checkmarks.csv out of Loop's export zip", async () => {
  const files = await readLoopFiles(fixture("loop_export.zip"));
  assert.equal(files.checkmarks, text("loop_Checkmarks.csv"));
  assert.equal(files.habits, text("loop_Habits.csv"));
  const bare = await readLoopFiles(fixture("loop_Checkmarks.csv"));
  assert.equal(bare.habits, undefined);
});

Deno.test("readZipTexts() refuses an entry that inflates past the cap", async () => {
  await assert.rejects(
    () => readZipTexts(fixture("loop_export.zip"), ["Checkmarks.csv"], 100),
    /inflates to more than 100 bytes/,
  );
  await assert.rejects(
    () => readZipTexts(new TextEncoder().encode("PK\u0003\u0004 not a zip"), ["a"], 100),
    /cannot be read/,
  );
});

Deno.test("parseDaylio() maps moods to 1–5, activities to yes/no, merges a day's entries", () => {
  const parsed = parseDaylio(text("daylio_export.csv"));
  assert.deepEqual(
    parsed.columns.map((c) => [c.source, c.key, c.type]),
    [
      ["mood", "mood", "scale"],
      ["friends", "friends", "boolean"],
      ["sport", "sport", "boolean"],
      ["good sleep", "good_sleep", "boolean"],
      ["reading", "reading", "boolean"],
      ["movies / tv", "movies_tv", "boolean"],
      ["bad sleep", "bad_sleep", "boolean"],
    ],
  );
  const [nov16, , nov14, nov13] = parsed.rows.map((r) => ({ ...r, values: named(parsed, r) }));
  assert.equal(parsed.rows.length, 4);
  // Newest entry's mood (rad = 5), every activity of the day, notes oldest first.
  assert.equal(nov16.values.mood, 5);
  assert.equal(nov16.values.sport, true);
  assert.equal(nov16.values.reading, false);
  assert.equal(nov16.note, "Morning\nSlow start\n\nGreat day");
  assert.equal(nov14.values.mood, 2); // "sad " trimmed
  assert.equal(nov14.values["bad sleep"], true);
  assert.equal(nov14.note, "Rainy\nstayed in");
  assert.equal(nov13.values.mood, 1);
  assert.deepEqual(parsed.moods?.map((m) => [m.label, m.value]), [
    ["rad", 5],
    ["meh", 3],
    ["good", 4],
    ["sad", 2],
    ["awful", 1],
  ]);
});

Deno.test("parseDaylio() rejects an unmapped mood until the member places it", () => {
  const first = parseDaylio(text("daylio_custom_moods.csv"));
  assert.equal(first.errors.length, 1);
  assert.equal(first.errors[0].line, 2);
  assert.match(first.errors[0].reason, /Mood "ecstatic" has no place/);
  assert.deepEqual(first.moods?.find((m) => m.label === "ecstatic")?.value, null);
  const mapped = parseDaylio(text("daylio_custom_moods.csv"), { ecstatic: 5 });
  assert.equal(mapped.errors.length, 0);
  assert.equal(named(mapped, mapped.rows[0]).mood, 5);
});

Deno.test("parseDaylio() reads the older year,date export", () => {
  const parsed = parseDaylio(text("daylio_2018_format.csv"));
  assert.deepEqual(parsed.rows.map((r) => r.date), ["2026-11-12", "2026-11-11"]);
  assert.equal(named(parsed, parsed.rows[1]).stressed, true);
  assert.throws(() => parseDaylio("a,b\n1,2\n"), /not a Daylio export/);
});

Deno.test("keyFromName() makes a valid column key from any name", () => {
  assert.equal(keyFromName("Movies / TV"), "movies_tv");
  assert.equal(keyFromName("10k steps"), "c_10k_steps");
  assert.equal(keyFromName("Café"), "cafe");
  assert.equal(keyFromName("!!!"), "c");
  assert.match(keyFromName("x".repeat(90)), /^[a-z][a-z0-9_]{0,39}$/);
});

Deno.test("parseLoop() keeps two habits of one name as two columns, each with its own Habits.csv row", async () => {
  const parsed = parseLoop(await readLoopFiles(fixture("loop_repeated_names.zip")));
  assert.deepEqual(parsed.columns.map((c) => [c.source, c.key, c.type, c.unit]), [
    ["H", "h", "boolean", null],
    ["Walk", "walk", "boolean", null],
    ["H (2)", "h_2", "number", "h"],
  ]);
  assert.deepEqual(parsed.rows.map((r) => [r.date, named(parsed, r)]), [
    ["2026-11-16", { H: true, Walk: false, "H (2)": 2.5 }],
    ["2026-11-15", { H: false, Walk: true }],
    ["2026-11-14", { H: true, "H (2)": 1 }],
  ]);
  assert.ok(parsed.notices.includes('2 habits are named "H": they are imported as "H", "H (2)".'));
});

Deno.test("uniqueNames() numbers a repeat and skips a number the file already uses", () => {
  assert.deepEqual(uniqueNames(["H", "H (2)", "H", "H", "G"]), [
    "H",
    "H (2)",
    "H (3)",
    "H (4)",
    "G",
  ]);
  assert.deepEqual(uniqueNames(["a", "b"]), ["a", "b"]);
});

Deno.test("parseDaylio() makes an impossible year + date a row error, never a later day", () => {
  const parsed = parseDaylio(
    "year,date,weekday,time,mood,activities,note\n" +
      "2025,29 February,Saturday,9:00 pm,good,sport,\n" +
      "2024,29 February,Thursday,9:00 pm,good,sport,\n" +
      "2025,31 April,Thursday,9:00 pm,good,sport,\n",
  );
  assert.deepEqual(parsed.errors, [
    { line: 2, date: "2025 29 February", reason: "29 February 2025 is not a real date." },
    { line: 4, date: "2025 31 April", reason: "31 April 2025 is not a real date." },
  ]);
  assert.deepEqual(parsed.rows.map((r) => r.date), ["2024-02-29"]);
});

Deno.test("csvSafeText() prefixes formula-like text with one ' and csvTextOf() undoes it exactly", () => {
  const cases: [string, string][] = [
    ["=1+1", "'=1+1"],
    ["+x", "'+x"],
    ["-y", "'-y"],
    ["@z", "'@z"],
    ["\tx", "'\tx"],
    ["\rx", "'\rx"],
    ["'=a", "''=a"],
    ["''@b", "'''@b"],
    ["'plain", "'plain"],
    ["plain", "plain"],
    ["a = b", "a = b"],
    ["", ""],
  ];
  for (const [note, cell] of cases) {
    assert.equal(csvSafeText(note), cell, JSON.stringify(note));
    assert.equal(csvTextOf(cell), note, JSON.stringify(cell));
  }
});

Deno.test("mapColumns() gives an existing column to one source column only", () => {
  const parsed = parseLoop({ checkmarks: "Date,H,h,\n2026-11-16,YES_MANUAL,NO,\n" });
  const existing = {
    ...parsed.columns[0],
    key: "h",
    label: "H",
    archived: false,
    daily_agg: "any" as const,
  };
  const { targets, created } = mapColumns(parsed.columns, [existing]);
  assert.deepEqual(targets.map((c) => c.key), ["h", "h_2"]);
  assert.deepEqual(created.map((c) => [c.key, c.label]), [["h_2", "h"]]);
});
