import assert from "node:assert/strict";
import { day, series, testColumn } from "../analytics/_test_record.ts";
import { computeStreak } from "../analytics/streak.ts";
import { weekdayOf } from "../foundation/dates.ts";
import { buildHeatmap, cellState, HEATMAP_BOX } from "./heatmap.ts";

const TODAY = day("2026-03-18"); // a Wednesday

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

Deno.test("buildHeatmap() covers 365 days in week columns and weekday rows, counts each state", () => {
  // The last 10 days: 4 done, 2 missed, 1 skipped, 3 with nothing (today included).
  const plan = [8, 8, 6, undefined, "skip", 8, 5, undefined, 9, undefined] as const;
  const values = series(TODAY, 10, (_d, i) => plan[i]);
  const map = buildHeatmap(SLEEP, values, TODAY);
  assert.equal(map.cells.length, 365);
  assert.deepEqual(map.counts, { done: 4, missed: 2, skipped: 1, none: 358 });
  const { cell, gap, left, top } = HEATMAP_BOX;
  const last = map.cells.at(-1)!;
  assert.equal(last.day, TODAY);
  assert.equal(last.y, top + weekdayOf(TODAY) * (cell + gap));
  assert.equal(last.x, map.width - (cell + gap), "today is in the rightmost column");
  assert.equal(map.cells[0].x, left);
  // Same day rule as the streak: its current run is the one done day (yesterday's 9) after the
  // last missed day, today being still open.
  const streak = computeStreak(SLEEP, values, TODAY);
  const afterLastMiss = map.cells.slice(map.cells.findLastIndex((c) => c.state === "missed") + 1);
  assert.equal(streak.current!.length, afterLastMiss.filter((c) => c.state === "done").length);
  assert.equal(
    map.name,
    "Sleep — calendar of the last 365 days (Mar 19, 2025 to Mar 18, 2026): done 4, missed 2, skipped 1, no data 358",
  );
});

Deno.test("buildHeatmap() puts a month name over the week each month starts, without overlap", () => {
  const map = buildHeatmap(SLEEP, new Map(), TODAY);
  const labels = map.months.map((m) => m.label);
  assert.ok(labels.includes("Jan") && labels.includes("Feb") && labels.includes("Mar"));
  assert.ok(labels.length >= 11 && labels.length <= 13, labels.join(","));
  for (let i = 1; i < map.months.length; i++) {
    assert.ok(map.months[i].x - map.months[i - 1].x >= 3 * (HEATMAP_BOX.cell + HEATMAP_BOX.gap));
  }
  assert.deepEqual(map.weekdays.map((w) => w.label), ["Mon", "Wed", "Fri"]);
});
