import assert from "node:assert/strict";
import { dateWords } from "../../components/dates.ts";
import { day, series, testColumn } from "../analytics/_test_record.ts";
import { computeStreak } from "../analytics/streak.ts";
import { weekdayOf } from "../foundation/dates.ts";
import { buildHeatmap, cellState, HEATMAP_BOX } from "./heatmap.ts";

const TODAY = day("2026-03-18"); // a Wednesday
const dates = dateWords("en-US");

const SLEEP = testColumn("sleep", {
  label: "Sleep",
  unit: "h",
  goal: { op: "at_least", value: 7, per: "day", times: null },
});

Deno.test("cellState() classifies done / missed / skipped / no data as the streak counts days", () => {
  assert.equal(cellState(SLEEP, 7.5), "done");
  assert.equal(cellState(SLEEP, 7), "done");
  assert.equal(cellState(SLEEP, 6.9), "missed");
  assert.equal(cellState(SLEEP, "skip"), "skipped");
  assert.equal(cellState(SLEEP, undefined), "none");
  const noGoal = testColumn("weight");
  assert.equal(cellState(noGoal, 80), "done", "without a goal, a logged day counts");
  const workout = testColumn("workout", {
    type: "boolean",
    goal: { op: "true", value: null, per: "day", times: null },
  });
  assert.equal(cellState(workout, true), "done");
  assert.equal(cellState(workout, false), "missed");
});

Deno.test("buildHeatmap() draws one year up to today in week columns and weekday rows, counts each state", () => {
  // The last 10 days: 4 done, 2 missed, 1 skipped, 3 with nothing (today included).
  const plan = [8, 8, 6, undefined, "skip", 8, 5, undefined, 9, undefined] as const;
  const values = series(TODAY, 10, (_d, i) => plan[i]);
  const map = buildHeatmap(SLEEP, values, { year: 2026, today: TODAY, dates });
  assert.equal(map.cells.length, 31 + 28 + 18, "Jan 1 to today, no later day drawn");
  assert.deepEqual(map.counts, { done: 4, missed: 2, skipped: 1, paused: 0, none: 70 });
  const { cell, gap, left, top } = HEATMAP_BOX;
  const last = map.cells.at(-1)!;
  assert.equal(last.day, TODAY);
  assert.equal(map.today, TODAY);
  assert.equal(last.y, top + weekdayOf(TODAY) * (cell + gap), "Monday first: row = ISO weekday");
  assert.equal(map.cells[0].x, left);
  assert.ok(map.width >= left + 53 * (cell + gap), "the grid keeps a whole year's width");
  // Same day rule as the streak: its current run is the one done day (yesterday's 9) after the
  // last missed day, today being still open.
  const streak = computeStreak(SLEEP, values, TODAY);
  const afterLastMiss = map.cells.slice(map.cells.findLastIndex((c) => c.state === "missed") + 1);
  assert.equal(streak.current!.length, afterLastMiss.filter((c) => c.state === "done").length);
  assert.equal(
    map.name,
    "Sleep — calendar of 2026 (January 1 to March 18, 2026): done 4, missed 2, skipped 1, no data 70",
  );
});

Deno.test("buildHeatmap() draws an earlier year whole, Dec 31 in the rightmost column", () => {
  const map = buildHeatmap(SLEEP, new Map(), { year: 2025, today: TODAY, dates });
  assert.equal(map.cells.length, 365);
  const last = map.cells.at(-1)!;
  assert.equal(last.day, day("2025-12-31"));
  assert.equal(last.x, map.width - (HEATMAP_BOX.cell + HEATMAP_BOX.gap));
  assert.equal(map.today, null, "today is not in 2025: no day is outlined as today");
  assert.match(map.name, /^Sleep — calendar of 2025 \(January 1 to December 31, 2025\): /);
});

Deno.test("buildHeatmap() puts a month name over the week each month starts, without overlap", () => {
  const map = buildHeatmap(SLEEP, new Map(), { year: 2025, today: TODAY, dates });
  const labels = map.months.map((m) => m.label);
  assert.ok(labels.includes("Jan") && labels.includes("Feb") && labels.includes("Dec"));
  assert.ok(labels.length >= 11 && labels.length <= 12, labels.join(","));
  for (let i = 1; i < map.months.length; i++) {
    assert.ok(map.months[i].x - map.months[i - 1].x >= 3 * (HEATMAP_BOX.cell + HEATMAP_BOX.gap));
  }
  assert.deepEqual(map.weekdays.map((w) => w.label), ["Mon", "Wed", "Fri"]);
});

Deno.test("buildHeatmap() starts each week on the member's first day of the week", () => {
  const sunday = day("2026-03-15");
  const map = buildHeatmap(SLEEP, new Map(), { year: 2026, today: TODAY, dates, weekStartsOn: 0 });
  assert.deepEqual(map.weekdays.map((w) => w.label), ["Sun", "Tue", "Thu"]);
  const cellOf = (d: number) => map.cells.find((c) => c.day === d)!;
  assert.equal(cellOf(sunday).y, HEATMAP_BOX.top, "Sunday is the first row");
  assert.equal(cellOf(sunday).x, cellOf(sunday + 1).x, "Sunday and Monday share a week");
  assert.notEqual(cellOf(sunday).x, cellOf(sunday - 1).x, "Saturday ends the week before");
});

Deno.test("buildHeatmap() writes its months and range in the member's date style", () => {
  const gb = buildHeatmap(SLEEP, new Map(), {
    year: 2025,
    today: TODAY,
    dates: dateWords("en-GB"),
  });
  assert.match(gb.name, /^Sleep — calendar of 2025 \(1 January to 31 December 2025\): /);
  assert.ok(gb.months.some((m) => m.label === "Sept"), gb.months.map((m) => m.label).join());
  const us = buildHeatmap(SLEEP, new Map(), {
    year: 2025,
    today: TODAY,
    dates: dateWords("en-US"),
  });
  assert.ok(us.months.some((m) => m.label === "Sep"), us.months.map((m) => m.label).join());
});
