import assert from "node:assert/strict";
import { weekdayOf } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";
import { confidenceOf, correlate, correlationSentence, strengthOf } from "./correlation.ts";
import { pearson, spearman } from "./stats.ts";
import { day, seededRandom, series, testColumn, testRecord } from "./_test_record.ts";

const today = day("2026-03-18");
const range90 = { start: today - 89, end: today };

Deno.test("correlate pairs only days where both sides are logged", () => {
  const rnd = seededRandom(1);
  const a = series(today, 90, (_d, i) => (i % 10 === 3 ? "skip" : i % 7 === 0 ? undefined : rnd()));
  const b = series(today, 90, (_d, i) => (i % 11 === 5 ? undefined : rnd() + i / 30));
  const record = testRecord({
    columns: [testColumn("a"), testColumn("b")],
    values: { a, b },
  });
  // the pairs worked out independently of the scratch-buffer code
  const xs: number[] = [], ys: number[] = [];
  for (let d = range90.start; d <= range90.end; d++) {
    const va = a.get(d), vb = b.get(d);
    if (typeof va === "number" && typeof vb === "number") {
      xs.push(va);
      ys.push(vb);
    }
  }
  const c = correlate({
    record,
    a: testColumn("a"),
    b: testColumn("b"),
    lag: 0,
    range: range90,
    method: "spearman",
    detrend: "none",
  });
  assert.equal(c.n, xs.length);
  assert.ok(Math.abs(c.r - spearman(xs, ys)) < 1e-12);
  const p = correlate({
    record,
    a: testColumn("a"),
    b: testColumn("b"),
    lag: 0,
    range: range90,
    method: "pearson",
    detrend: "none",
  });
  assert.ok(Math.abs(p.r - pearson(xs, ys)) < 1e-12);
  assert.equal(c.daysWithA, [...a.values()].filter((v) => v !== "skip").length);
  assert.equal(c.daysWithB, b.size);
});

Deno.test("a positive lag pairs A on day d with B on day d + lag", () => {
  const rnd = seededRandom(2);
  const a = series(today, 40, () => Math.round(rnd() * 100));
  // B copies A one day later through a monotone but non-linear map
  const b = new Map<number, DayValue>();
  for (const [d, v] of a) b.set(d + 1, (v as number) ** 3);
  const record = testRecord({ columns: [testColumn("a"), testColumn("b")], values: { a, b } });
  const range = { start: today - 39, end: today };
  const lagged = correlate({
    record,
    a: testColumn("a"),
    b: testColumn("b"),
    lag: 1,
    range,
    method: "spearman",
    detrend: "none",
  });
  assert.equal(lagged.r, 1);
  assert.equal(lagged.n, 39); // A on the last day has its partner beyond the range
  assert.equal(lagged.firstA, today - 39);
  const back = correlate({
    record,
    a: testColumn("b"),
    b: testColumn("a"),
    lag: -1,
    range,
    method: "spearman",
    detrend: "none",
  });
  assert.equal(back.r, 1);
  assert.equal(back.firstA, today - 38); // B's first day is A's first day + 1
  const same = correlate({
    record,
    a: testColumn("a"),
    b: testColumn("b"),
    lag: 0,
    range,
    method: "spearman",
    detrend: "none",
  });
  assert.ok(Math.abs(same.r) < 0.5);
});

Deno.test("withholding rules, in order", () => {
  const cols = {
    x: testColumn("x"),
    y: testColumn("y"),
    flag: testColumn("flag", { type: "boolean" }),
    level: testColumn("level", { type: "scale", scale_min: 1, scale_max: 5 }),
    flat: testColumn("flat"),
  };
  const rnd = seededRandom(3);
  const record = testRecord({
    columns: Object.values(cols),
    values: {
      x: series(today, 90, () => rnd()),
      y: series(today, 90, (_d, i) => (i >= 77 ? rnd() : undefined)), // 13 days
      flag: series(today, 90, (_d, i) => i % 20 !== 0), // false on days 0, 20, 40, 60, 80
      level: series(today, 90, (_d, i) => 3 + (i % 2)),
      flat: series(today, 90, () => 7),
    },
  });
  const run = (a: keyof typeof cols, b: keyof typeof cols, lag = 0) =>
    correlate({
      record,
      a: cols[a],
      b: cols[b],
      lag,
      range: range90,
      method: "spearman",
      detrend: "none",
    });

  assert.deepEqual(run("x", "y").withheld, { reason: "insufficient_pairs", needed: 14, have: 13 });
  assert.ok(Number.isNaN(run("x", "y").r));
  assert.equal(run("flag", "x").withheld, null);
  // lag −1 pairs A's days 1…89 only, so day 0's false answer drops out
  assert.deepEqual(run("flag", "x", -1).withheld, {
    reason: "boolean_class_too_small",
    needed: 5,
    have: 4,
  });
  assert.deepEqual(run("x", "level").withheld, { reason: "too_few_levels", needed: 3, have: 2 });
  assert.deepEqual(run("x", "flat").withheld, { reason: "zero_variance", needed: 2, have: 1 });
});

Deno.test("detrend weekday removes a shared weekly rhythm", () => {
  const rnd = seededRandom(4);
  const weekly = [0, 1, 2, 3, 4, 8, 9];
  const a = series(today, 90, (d) => weekly[weekdayOf(d)] + rnd());
  const b = series(today, 90, (d) => weekly[weekdayOf(d)] + rnd());
  const record = testRecord({ columns: [testColumn("a"), testColumn("b")], values: { a, b } });
  const raw = correlate({
    record,
    a: testColumn("a"),
    b: testColumn("b"),
    lag: 0,
    range: range90,
    method: "pearson",
    detrend: "none",
  });
  const flat = correlate({
    record,
    a: testColumn("a"),
    b: testColumn("b"),
    lag: 0,
    range: range90,
    method: "pearson",
    detrend: "weekday",
  });
  assert.ok(raw.r > 0.9, `raw r ${raw.r}`);
  assert.ok(Math.abs(flat.r) < 0.3, `detrended r ${flat.r}`);
  // detrending a series that is nothing but the weekly rhythm leaves a constant
  const pure = testRecord({
    columns: [testColumn("a"), testColumn("b")],
    values: { a: series(today, 90, (d) => weekly[weekdayOf(d)]), b },
  });
  const gone = correlate({
    record: pure,
    a: testColumn("a"),
    b: testColumn("b"),
    lag: 0,
    range: range90,
    method: "pearson",
    detrend: "weekday",
  });
  assert.equal(gone.withheld?.reason, "zero_variance");
});

Deno.test("strength and confidence bands", () => {
  assert.equal(strengthOf(0.099), "negligible");
  assert.equal(strengthOf(-0.1), "weak");
  assert.equal(strengthOf(0.4999), "moderate");
  assert.equal(strengthOf(-0.5), "strong");
  assert.equal(confidenceOf(0.009, 30), "high");
  assert.equal(confidenceOf(0.009, 29), "medium");
  assert.equal(confidenceOf(0.049, 100), "medium");
  assert.equal(confidenceOf(0.05, 100), "low");
});

Deno.test("sentences are second person and follow sign, lag and strength", () => {
  const sleep = testColumn("sleep_hours", { label: "Sleep hours", daily_agg: "sum" });
  const mood = testColumn("mood", { label: "Mood", type: "scale" });
  const workout = testColumn("workout", { label: "Workout", type: "boolean" });
  const hr = testColumn("resting_hr", { label: "Resting HR" });
  assert.equal(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: { r: 0.58, p: 1e-9, n: 160, withheld: null },
    }),
    "Your mood tends to be higher on days with more sleep hours.",
  );
  assert.equal(
    correlationSentence({
      a: workout,
      b: mood,
      lag: 1,
      c: { r: 0.2, p: 0.001, n: 160, withheld: null },
    }),
    "Your mood tends to be slightly higher on days after workout.",
  );
  assert.equal(
    correlationSentence({
      a: sleep,
      b: hr,
      lag: -2,
      c: { r: -0.35, p: 0.2, n: 20, withheld: null },
    }),
    "Your resting HR may be lower 2 days before more sleep hours, but the evidence is weak.",
  );
  assert.match(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: { r: 0.01, p: 0.9, n: 80, withheld: null },
    }),
    /^Your mood shows no meaningful link with your sleep hours/,
  );
  assert.match(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: {
        r: NaN,
        p: NaN,
        n: 7,
        withheld: { reason: "insufficient_pairs", needed: 14, have: 7 },
      },
    }),
    /7 days with both logged, 14 needed/,
  );
});

Deno.test("sentence wording drops label notes and says 'more' for amounts", () => {
  const sleep = testColumn("sleep_hours", { label: "Sleep (dated by wake day)", unit: "h" });
  const mood = testColumn("mood", { label: "Mood", type: "scale" });
  assert.equal(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: { r: 0.7, p: 1e-9, n: 80, withheld: null },
    }),
    "Your mood tends to be higher on days with more sleep.",
  );
  assert.match(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: {
        r: NaN,
        p: NaN,
        n: 80,
        withheld: { reason: "boolean_class_too_small", needed: 5, have: 1 },
      },
    }),
    /only 1 day in its rarer answer/,
  );
});
