import assert from "node:assert/strict";
import { weekdayOf } from "../foundation/dates.ts";
import type { DayValue, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import {
  confidenceOf,
  correlate,
  type CorrelationMethod,
  correlationSentence,
  type Detrend,
  strengthOf,
} from "./correlation.ts";
import { pearson, spearman } from "./stats.ts";
import { day, seededRandom, series, testColumn, testRecord } from "./_test_record.ts";

const today = day("2026-03-18");
const range90 = { start: today - 89, end: today };

/** Correlates test columns "a" and "b" on the same day (the shape most tests here need). */
function pairAB(
  o: { record: MemberRecord; range: DayRange; method: CorrelationMethod; detrend: Detrend },
) {
  return correlate({ ...o, a: testColumn("a"), b: testColumn("b"), lag: 0 });
}

Deno.test("correlate() correlate pairs only days where both sides are logged", () => {
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
  const c = pairAB({ record, range: range90, method: "spearman", detrend: "none" });
  assert.equal(c.n, xs.length);
  assert.ok(Math.abs(c.r - spearman(xs, ys)) < 1e-12);
  const p = pairAB({ record, range: range90, method: "pearson", detrend: "none" });
  assert.ok(Math.abs(p.r - pearson(xs, ys)) < 1e-12);
  assert.equal(c.daysWithA, [...a.values()].filter((v) => v !== "skip").length);
  assert.equal(c.daysWithB, b.size);
});

Deno.test("correlate() a positive lag pairs A on day d with B on day d + lag", () => {
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
  const same = pairAB({ record, range, method: "spearman", detrend: "none" });
  assert.ok(Math.abs(same.r) < 0.5);
});

Deno.test("correlate() withholding rules, in order", () => {
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

Deno.test("correlate() detrend weekday removes a shared weekly rhythm", () => {
  const rnd = seededRandom(4);
  const weekly = [0, 1, 2, 3, 4, 8, 9];
  const a = series(today, 90, (d) => weekly[weekdayOf(d)] + rnd());
  const b = series(today, 90, (d) => weekly[weekdayOf(d)] + rnd());
  const record = testRecord({ columns: [testColumn("a"), testColumn("b")], values: { a, b } });
  const raw = pairAB({ record, range: range90, method: "pearson", detrend: "none" });
  // raw, the shared rhythm makes the days so alike week to week that few count as independent
  assert.equal(raw.withheld?.reason, "insufficient_effective_pairs");
  const rawR = pearson([...a.values()] as number[], [...b.values()] as number[]);
  const flat = pairAB({ record, range: range90, method: "pearson", detrend: "weekday" });
  assert.ok(rawR > 0.9, `raw r ${rawR}`);
  assert.ok(Math.abs(flat.r) < 0.3, `detrended r ${flat.r}`);
  // detrending a series that is nothing but the weekly rhythm leaves a constant
  const pure = testRecord({
    columns: [testColumn("a"), testColumn("b")],
    values: { a: series(today, 90, (d) => weekly[weekdayOf(d)]), b },
  });
  const gone = pairAB({ record: pure, range: range90, method: "pearson", detrend: "weekday" });
  assert.equal(gone.withheld?.reason, "zero_variance");
});

Deno.test("correlate() with weekday_trend removes a shared drift and reports what ran", () => {
  const rnd = seededRandom(5);
  // two unrelated series that both climb over the window
  const a = series(today, 90, (_d, i) => i / 10 + rnd());
  const b = series(today, 90, (_d, i) => i / 12 + rnd());
  const record = testRecord({ columns: [testColumn("a"), testColumn("b")], values: { a, b } });
  const raw = pairAB({ record, range: range90, method: "pearson", detrend: "none" });
  const adj = pairAB({
    record: record,
    range: range90,
    method: "pearson",
    detrend: "weekday_trend",
  });
  const rawR = pearson([...a.values()] as number[], [...b.values()] as number[]);
  assert.ok(rawR > 0.8, `raw r ${rawR}`);
  assert.equal(raw.withheld?.reason, "insufficient_effective_pairs");
  assert.ok(Math.abs(adj.r) < 0.25 && adj.p > 0.05, `adjusted r ${adj.r}, p ${adj.p}`);
  assert.deepEqual([adj.applied, adj.nuisance, raw.applied, raw.nuisance], [
    "weekday_trend",
    7,
    "none",
    0,
  ]);
  // the raw series share a trend, so their autocorrelations shrink the effective size
  assert.ok(raw.nEff < 14, `raw n_eff ${raw.nEff} of ${raw.n}`);
  assert.ok(adj.nEff > 0.8 * adj.n, `adjusted n_eff ${adj.nEff} of ${adj.n}`);
});

Deno.test("correlate() falls back to weekend + trend on a short series and withholds a smooth one on n_eff", () => {
  const rnd = seededRandom(6);
  const short = { start: today - 19, end: today };
  const a = series(today, 20, () => rnd());
  const b = series(today, 20, () => rnd());
  const record = testRecord({ columns: [testColumn("a"), testColumn("b")], values: { a, b } });
  const c = pairAB({ record, range: short, method: "spearman", detrend: "weekday_trend" });
  assert.equal(c.applied, "weekend_trend");
  assert.equal(c.nuisance, 2);
  // 30 days of slow waves: many days, few independent ones
  const smoothA = series(today, 30, (_d, i) => Math.sin(i / 4) + 0.05 * rnd());
  const smoothB = series(today, 30, (_d, i) => Math.sin(i / 4 + 0.3) + 0.05 * rnd());
  const wavy = testRecord({
    columns: [testColumn("a"), testColumn("b")],
    values: { a: smoothA, b: smoothB },
  });
  const w = pairAB({
    record: wavy,
    range: { start: today - 29, end: today },
    method: "pearson",
    detrend: "none",
  });
  assert.equal(w.withheld?.reason, "insufficient_effective_pairs");
  assert.equal(w.n, 30);
  assert.ok(Number.isNaN(w.r));
});

Deno.test("correlate() strength and confidence bands", () => {
  assert.equal(strengthOf(0.099), "negligible");
  assert.equal(strengthOf(-0.1), "weak");
  assert.equal(strengthOf(0.4999), "moderate");
  assert.equal(strengthOf(-0.5), "strong");
  // confidence takes q (= p for one test) and the effective number of pairs (statistics.md §4)
  assert.equal(confidenceOf(0.01, 30), "high");
  assert.equal(confidenceOf(0.009, 29.9), "medium");
  assert.equal(confidenceOf(0.05, 100), "medium");
  assert.equal(confidenceOf(0.051, 100), "low");
});

Deno.test("correlate() sentences are second person and follow sign, lag and strength", () => {
  const sleep = testColumn("sleep_hours", { label: "Sleep hours", daily_agg: "sum" });
  const mood = testColumn("mood", { label: "Mood", type: "scale" });
  const workout = testColumn("workout", { label: "Workout", type: "boolean" });
  const hr = testColumn("resting_hr", { label: "Resting HR" });
  assert.equal(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: { r: 0.58, confidence: "high", withheld: null },
    }),
    "You tend to have higher mood on days with more sleep hours.",
  );
  assert.equal(
    correlationSentence({
      a: workout,
      b: mood,
      lag: 1,
      c: { r: 0.2, confidence: "high", withheld: null },
    }),
    "You tend to have slightly higher mood on days after workout.",
  );
  assert.equal(
    correlationSentence({
      a: sleep,
      b: hr,
      lag: -2,
      c: { r: -0.35, confidence: "low", withheld: null },
    }),
    "You may have lower resting HR 2 days before more sleep hours, but the evidence is weak.",
  );
  assert.match(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: { r: 0.01, confidence: "low", withheld: null },
    }),
    /^No meaningful link between your mood and your sleep hours/,
  );
  assert.match(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: {
        r: NaN,
        confidence: null,
        withheld: { reason: "insufficient_pairs", needed: 14, have: 7 },
      },
    }),
    /7 days with both logged, 14 needed/,
  );
});

Deno.test("correlate() sentence wording drops label notes and says 'more' for amounts", () => {
  const sleep = testColumn("sleep_hours", { label: "Sleep (dated by wake day)", unit: "h" });
  const mood = testColumn("mood", { label: "Mood", type: "scale" });
  assert.equal(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: { r: 0.7, confidence: "high", withheld: null },
    }),
    "You tend to have higher mood on days with more sleep.",
  );
  assert.match(
    correlationSentence({
      a: sleep,
      b: mood,
      lag: 0,
      c: {
        r: NaN,
        confidence: null,
        withheld: { reason: "boolean_class_too_small", needed: 5, have: 1 },
      },
    }),
    /only 1 day in its rarer answer/,
  );
});

Deno.test("correlate() pairs a range longer than 366 days (the coach reads whole histories)", () => {
  const rnd = seededRandom(7);
  const a = series(today, 800, () => rnd());
  const b = new Map<number, DayValue>();
  for (const [d, v] of a) b.set(d, (v as number) + 0.5 * rnd());
  const record = testRecord({ columns: [testColumn("a"), testColumn("b")], values: { a, b } });
  const long = { start: today - 799, end: today };
  const c = pairAB({ record, range: long, method: "pearson", detrend: "none" });
  assert.equal(c.n, 800);
  const xs = [...a.values()] as number[], ys = [...b.values()] as number[];
  assert.ok(Math.abs(c.r - pearson(xs, ys)) < 1e-12, `r ${c.r}`);
  // and a short call afterwards still sees only its own days
  const short = pairAB({ record, range: range90, method: "pearson", detrend: "none" });
  assert.equal(short.n, 90);
});
