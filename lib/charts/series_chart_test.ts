import assert from "node:assert/strict";
import { dateWords } from "../../components/dates.ts";
import { day, series, testColumn } from "../analytics/_test_record.ts";
import { buildSeriesChart, CHART_BOX, chartKind } from "./series_chart.ts";
import { summaryOf } from "./summary.ts";
import { formatDay, weekdayOf } from "../foundation/dates.ts";

const TODAY = day("2026-03-18");
/** The tests read month-first dates; the en-GB order has a test of its own below. */
const dates = dateWords("en-US");

Deno.test("chartKind() draws totals and yes/no as bars, measured levels as a line", () => {
  assert.equal(chartKind(testColumn("steps", { type: "integer", daily_agg: "sum" })), "bars");
  assert.equal(chartKind(testColumn("water", { type: "number", daily_agg: "sum" })), "bars");
  assert.equal(chartKind(testColumn("workout", { type: "boolean", daily_agg: "any" })), "bars");
  assert.equal(chartKind(testColumn("sleep", { type: "number", daily_agg: "mean" })), "line");
  assert.equal(chartKind(testColumn("hr", { type: "integer", daily_agg: "mean" })), "line");
  assert.equal(chartKind(testColumn("mood", { type: "scale", daily_agg: "mean" })), "line");
  assert.equal(chartKind(testColumn("bed", { type: "time_of_day", daily_agg: "last" })), "line");
});

Deno.test("buildSeriesChart() leaves missing and skipped days as gaps, never zero", () => {
  const sleep = testColumn("sleep", { unit: "h" });
  // 30 days: day 10 missing, day 11 skipped, day 12 logged as 0 (a real value, not a gap).
  const values = series(
    TODAY,
    30,
    (_d, i) => i === 10 ? undefined : i === 11 ? "skip" : i === 12 ? 0 : 6 + (i % 3),
  );
  const chart = buildSeriesChart(sleep, values, { today: TODAY, days: 30, dates });
  assert.equal(chart.kind, "line");
  assert.equal(chart.days.length, 30);
  assert.equal(chart.days[10].value, null);
  assert.equal(chart.days[10].state, "missing");
  assert.equal(chart.days[11].value, null);
  assert.equal(chart.days[11].state, "skip");
  assert.equal(chart.days[12].value, 0);
  // Two runs of logged days → the path starts twice (a gap, not a line through zero).
  assert.equal(chart.linePath!.match(/M/g)!.length, 2);
  assert.equal(chart.dots.length, 28);
  // The logged zero sits on the y of 0, inside the domain that now starts at 0.
  assert.equal(chart.yDomain[0], 0);
  const zero = chart.dots.find((d) => d.day === TODAY - 29 + 12)!;
  assert.equal(zero.y, CHART_BOX.height - CHART_BOX.bottom);
});

Deno.test("buildSeriesChart() gives a logged zero a visible bar and a missing day none", () => {
  const steps = testColumn("steps", { type: "integer", daily_agg: "sum" });
  const values = series(TODAY, 7, (_d, i) => (i === 2 ? undefined : i === 3 ? "skip" : i * 1000));
  const chart = buildSeriesChart(steps, values, { today: TODAY, days: 7, dates });
  assert.equal(chart.kind, "bars");
  assert.equal(chart.bars.length, 5);
  assert.deepEqual(chart.bars.map((b) => b.day - (TODAY - 6)), [0, 1, 4, 5, 6]);
  assert.equal(chart.bars[0].height, 2, "a logged 0 is a 2-unit stub on the baseline");
  assert.ok(chart.bars[4].height > chart.bars[3].height);
  assert.equal(chart.yDomain[0], 0);
});

Deno.test("buildSeriesChart() draws the goal inside the y domain, with the band on its met side", () => {
  const sleep = testColumn("sleep", {
    unit: "h",
    goal: { op: "at_least", value: 9, per: "day", times: null },
  });
  const values = series(TODAY, 30, (_d, i) => 6 + (i % 3) * 0.5); // never reaches 9
  const chart = buildSeriesChart(sleep, values, { today: TODAY, days: 30, dates });
  assert.ok(chart.yDomain[1] >= 9, `domain ${chart.yDomain} includes the goal`);
  assert.ok(chart.goal);
  assert.equal(chart.goal.label, "at least 9 h");
  // at_least: the band runs from the top of the plot down to the goal line.
  assert.equal(chart.goal.band!.y, CHART_BOX.top);
  assert.equal(chart.goal.band!.y + chart.goal.band!.height, chart.goal.y);
  assert.ok(chart.dots.every((d) => d.y > chart.goal!.y), "every value is below the goal line");
  assert.ok(chart.dots.every((d) => d.state === "below_goal"));
});

Deno.test("buildSeriesChart() keeps a 1–5 scale on its own domain and clock times on hours", () => {
  const mood = testColumn("mood", { type: "scale", scale_min: 1, scale_max: 5 });
  const chart = buildSeriesChart(mood, series(TODAY, 30, () => 3), {
    today: TODAY,
    days: 30,
    dates,
  });
  assert.deepEqual(chart.yDomain, [1, 5]);
  assert.ok(chart.yTicks.every((t) => /^[1-5]$/.test(t.label)));

  const bed = testColumn("bed", { type: "time_of_day", daily_agg: "last" });
  const times = series(TODAY, 30, (_d, i) => 22 * 60 + 15 + (i % 4) * 10); // 22:15 … 22:45
  const clock = buildSeriesChart(bed, times, { today: TODAY, days: 30, dates });
  assert.deepEqual(clock.yDomain, [21 * 60, 24 * 60]);
  assert.ok(clock.yTicks.every((t) => /^\d\d:00$/.test(t.label)), JSON.stringify(clock.yTicks));
});

Deno.test("buildSeriesChart() labels a year by months and 30 days by dates, few ticks", () => {
  const sleep = testColumn("sleep");
  const values = series(TODAY, 365, () => 7);
  const year = buildSeriesChart(sleep, values, { today: TODAY, days: 365, dates });
  assert.ok(year.xTicks.length >= 4 && year.xTicks.length <= 12, `${year.xTicks.length} ticks`);
  assert.ok(year.xTicks.every((t) => /^[A-Z][a-z]{2}( \d{4})?$/.test(t.label)));
  assert.ok(year.xTicks.some((t) => t.label === "Jan 2026"));
  const daily = buildSeriesChart(sleep, values, { today: TODAY, days: 365, dates, bucket: "day" });
  assert.equal(daily.dots.length, 0, "a full year of daily values needs no dots");
  const month = buildSeriesChart(sleep, values, { today: TODAY, days: 30, dates });
  assert.ok(month.xTicks.length >= 2 && month.xTicks.length <= 6);
  assert.ok(month.xTicks.every((t) => /^[A-Z][a-z]{2} \d{1,2}$/.test(t.label)));
  assert.ok(month.xTicks.every((t) => t.at >= CHART_BOX.left && t.at <= CHART_BOX.width));
});

Deno.test("summaryOf() states the numbers recomputed from the raw values", () => {
  const sleep = testColumn("sleep", {
    label: "Sleep",
    unit: "h",
    goal: { op: "at_least", value: 8, per: "day", times: null },
  });
  const raw = [7.5, 8.2, 5.5, 8.9, 6, 7.1, 8]; // today (the last) meets the goal
  // 10 days ending today: a value, nothing, a skip, nothing, then the other six values.
  const values = series(
    TODAY,
    10,
    (_d, i) => i === 1 || i === 3 ? undefined : i === 2 ? "skip" : raw[i === 0 ? 0 : i - 3],
  );
  const s = summaryOf(sleep, values, { today: TODAY, days: 10, dates });
  const mean = raw.reduce((a, b) => a + b, 0) / raw.length;
  const met = raw.filter((v) => v >= 8).length;
  assert.equal(s.logged, raw.length);
  assert.equal(s.mean, Math.round(mean * 100) / 100);
  assert.equal(s.min!.value, Math.min(...raw));
  assert.equal(s.max!.value, Math.max(...raw));
  // missing_policy "breaks": the two empty days are eligible (and not met); the skip is not.
  assert.deepEqual(s.goal, { words: "at least 8 h", met, eligible: raw.length + 2 });
  assert.equal(
    s.name,
    `Sleep — last 10 days: average ${(Math.round(mean * 10) / 10)} h, min 5.5 h (March 14), ` +
      `max 8.9 h (March 15), goal at least 8 h met on ${met} of 9 days, logged on 7 of 10 days`,
  );
});

Deno.test("summaryOf() totals additive columns and counts yes/no goals as done days", () => {
  const steps = testColumn("steps", {
    label: "Steps",
    type: "integer",
    daily_agg: "sum",
    unit: "steps",
  });
  const s = summaryOf(steps, series(TODAY, 4, (_d, i) => (i + 1) * 1000), {
    today: TODAY,
    days: 4,
    dates,
  });
  assert.equal(s.sum, 10000);
  assert.match(
    s.name,
    /^Steps — last 4 days: total 10,000 steps, average 2,500 steps a logged day/,
  );

  const workout = testColumn("workout", {
    label: "Workout",
    type: "boolean",
    daily_agg: "any",
    goal: { op: "true", value: null, per: "week", times: 3 },
  });
  const done = series(TODAY, 7, (_d, i) => (i === 0 ? "skip" : i % 2 === 0));
  const w = summaryOf(workout, done, { today: TODAY, days: 7, dates });
  assert.match(w.name, /^Workout — last 7 days: done on 3 of 6 days \(goal: 3 times a week\)/);

  const empty = summaryOf(workout, new Map(), { today: TODAY, days: 30, dates });
  assert.equal(empty.name, "Workout — last 30 days: nothing logged, logged on 0 of 30 days");
});

Deno.test("buildSeriesChart() draws a year as weeks and longer as months, each mark the analytics' mean", () => {
  const steps = testColumn("steps", { type: "integer", daily_agg: "sum" });
  const values = series(TODAY, 1095, (_d, i) => (i % 5 === 0 ? undefined : 1000 + (i % 7) * 500));
  const year = buildSeriesChart(steps, values, { today: TODAY, days: 365, dates });
  assert.equal(year.bucket, "week");
  assert.ok(year.days.length >= 53 && year.days.length <= 54, `${year.days.length} marks`);
  // Each mark: the mean of its logged days, recomputed here from the raw values.
  for (const mark of year.days) {
    const xs: number[] = [];
    for (let d = mark.day; d <= mark.end; d++) {
      const v = values.get(d);
      if (typeof v === "number") xs.push(v);
    }
    const mean = Math.round((xs.reduce((a, v) => a + v, 0) / xs.length) * 100) / 100;
    assert.equal(mark.value, mean, `week of ${mark.day}`);
  }
  // 53 bars over the plot: each far wider than a day's bar of a 365-bar comb.
  const plot = CHART_BOX.width - CHART_BOX.left - CHART_BOX.right;
  assert.ok(year.bars.every((b) => b.width >= (plot / 54) * 0.7), `${year.bars[0].width} wide`);
  assert.ok(year.days.slice(1).every((m) => weekdayOf(m.day) === 0), "weeks start on Monday");
  assert.match(year.summary.name, /each mark a week's average a logged day$/);

  const all = buildSeriesChart(steps, values, { today: TODAY, days: 1095, dates });
  assert.equal(all.bucket, "month");
  assert.ok(all.days.length >= 36 && all.days.length <= 37, `${all.days.length} marks`);
  assert.ok(all.days.slice(1).every((m) => formatDay(m.day).endsWith("-01")));

  const sundays = buildSeriesChart(steps, values, {
    today: TODAY,
    days: 365,
    dates,
    weekStartsOn: 0,
  });
  assert.ok(sundays.days.slice(1).every((m) => weekdayOf(m.day) === 6), "weeks from Sunday");
});

Deno.test("buildSeriesChart() draws a yes/no column's weeks as the share of yes days", () => {
  const read = testColumn("read", { type: "boolean", daily_agg: "any" });
  // Yes on 3 of every 7 days (and never skipped): each full week is 3/7 yes.
  const values = series(TODAY, 365, (d) => weekdayOf(d) < 3);
  const chart = buildSeriesChart(read, values, { today: TODAY, days: 365, dates });
  const full = chart.days.filter((m) => m.end - m.day === 6);
  assert.ok(full.length >= 51);
  assert.ok(full.every((m) => m.value === Math.round((3 / 7) * 1000) / 1000));
  assert.deepEqual(chart.yTicks.map((t) => t.label), ["0%", "50%", "100%"]);
  assert.match(chart.summary.name, /each bar a week's share of yes days$/);
});

Deno.test("buildSeriesChart() writes its ticks and its summary's dates in the member's date style", () => {
  const sleep = testColumn("sleep", { label: "Sleep", unit: "h" });
  const values = series(TODAY, 30, (_d, i) => 6 + (i % 5) / 2);
  const gb = buildSeriesChart(sleep, values, { today: TODAY, days: 30, dates: dateWords("en-GB") });
  const us = buildSeriesChart(sleep, values, { today: TODAY, days: 30, dates: dateWords("en-US") });
  assert.ok(
    gb.xTicks.every((t) => /^\d{1,2} [A-Z][a-z]{2,3}$/.test(t.label)),
    JSON.stringify(gb.xTicks),
  );
  assert.ok(
    us.xTicks.every((t) => /^[A-Z][a-z]{2} \d{1,2}$/.test(t.label)),
    JSON.stringify(us.xTicks),
  );
  assert.match(gb.summary.name, /min 6 h \(\d{1,2} (February|March)\)/);
  assert.match(us.summary.name, /min 6 h \((February|March) \d{1,2}\)/);
  // A minimum in an earlier year than today's carries its year.
  const old = summaryOf(sleep, new Map([[day("2025-12-30"), 5]]), {
    today: TODAY,
    days: 365,
    dates: dateWords("en-GB"),
  });
  assert.match(old.name, /min 5 h \(30 December 2025\)/);
});
