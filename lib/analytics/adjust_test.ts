import assert from "node:assert/strict";
import {
  adjustedCorrelation,
  autocorrelations,
  benjaminiHochbergQ,
  benjaminiYekutieli,
  chooseAdjustment,
  confidenceFromQ,
  correlationInference,
  effectiveSampleSize,
  effectiveSizeOfMean,
  harmonicNumber,
  mannKendallHamedRao,
  removeWeekdayMeans,
  reportP,
  residualize,
} from "./adjust.ts";
import { correlationP, fisherCi95, mannKendall } from "./stats.ts";
import { weekdayOf } from "../foundation/dates.ts";

/** Asserts |actual − expected| ≤ tol. */
function near(actual: number, expected: number, tol = 1e-9) {
  assert.ok(Math.abs(actual - expected) <= tol, `expected ${expected} ± ${tol}, got ${actual}`);
}

// Reference values: NumPy 2.4 / SciPy 1.17 evaluations of the same definitions, written
// independently of this module (least squares by np.linalg.lstsq on an explicit dummy design,
// scipy.stats.t.sf / norm.sf for p). Each fixture is a closed-form series with gaps.

/** Case A: 60 days from day 20000 without days ≡ 4 (mod 9): 53 values, weekend bump, trends. */
function caseA() {
  const days: number[] = [], x: number[] = [], y: number[] = [];
  for (let d = 20000; d < 20060; d++) if (d % 9 !== 4) days.push(d);
  days.forEach((d, i) => {
    x.push(((i * 37) % 11) / 3 + 0.05 * (d - 20000) + (weekdayOf(d) >= 5 ? 0.8 : 0));
  });
  days.forEach((d, i) => {
    y.push(((i * 53) % 13) / 4 - 0.03 * (d - 20000) + 0.3 * weekdayOf(d) + 0.2 * x[i]);
  });
  return { days, x, y };
}

Deno.test("residualize() matches least squares on weekday dummies + day index", () => {
  const { days, x, y } = caseA();
  const ex = residualize(days, x, "weekday_trend");
  near(ex[0], -1.0488849462980967, 1e-9);
  near(ex[1], -0.44872565291211153, 1e-9);
  near(ex[2], 0.4637345237413921, 1e-9);
  near(residualize(days, y, "weekday_trend")[52], -1.1029731585877354, 1e-9);
});

Deno.test("residualize() removes an exact weekday profile plus trend to zero", () => {
  const days = Array.from({ length: 50 }, (_, i) => 20000 + i).filter((d) => d % 5 !== 0);
  const values = days.map((d) => [1, 0, 0.5, 0, 0, 2, 3][weekdayOf(d)] + 0.1 * d);
  for (const e of residualize(days, values, "weekday_trend")) near(e, 0, 1e-9);
  const none = residualize(days, values, "none");
  assert.deepEqual(Array.from(none), values);
});

Deno.test("chooseAdjustment() falls back to weekend + trend, trend, none on short series", () => {
  const span = (n: number) => Array.from({ length: n }, (_, i) => 20000 + i);
  assert.equal(chooseAdjustment(span(28), "weekday_trend"), "weekday_trend");
  assert.equal(chooseAdjustment(span(27), "weekday_trend"), "weekend_trend");
  assert.equal(chooseAdjustment(span(28), "none"), "none");
  assert.equal(chooseAdjustment(span(28), "weekday"), "weekday");
  assert.equal(chooseAdjustment(span(27), "weekday"), "weekend");
  // 20000 is a Thursday; Thu–Fri only: no weekend day at all
  assert.equal(chooseAdjustment([20000, 20001, 20007, 20008], "weekday_trend"), "trend");
  assert.equal(chooseAdjustment([20000, 20001], "weekday_trend"), "none");
});

Deno.test("adjustedCorrelation() reproduces r, n_eff, p and CI of an independent computation", () => {
  const { days, x, y } = caseA();
  const pearson = adjustedCorrelation({
    days,
    x,
    y,
    lag: 0,
    request: "weekday_trend",
    method: "pearson",
  });
  assert.equal(pearson.applied, "weekday_trend");
  assert.equal(pearson.nuisance, 7);
  assert.equal(pearson.n, 53);
  near(pearson.r, 0.1416585996023668, 1e-12);
  near(pearson.nEff, 53, 1e-12); // negative autocorrelation products: clamped at n
  near(pearson.p, 0.3476888505101541, 1e-9);
  near(pearson.ciLow, -0.1550141235164457, 1e-9);
  near(pearson.ciHigh, 0.4148948344583505, 1e-9);
  const rank = adjustedCorrelation({
    days,
    x,
    y,
    lag: 0,
    request: "weekday_trend",
    method: "spearman",
  });
  near(rank.r, 0.09054991130462828, 1e-12);
  near(rank.p, 0.5495267318405737, 1e-9);
});

Deno.test("adjustedCorrelation() shrinks n for smooth series paired at lag 1", () => {
  // Case B: 90 days without days ≡ 5 (mod 11); y is read on the day after x
  const days: number[] = [];
  for (let d = 20000; d < 20090; d++) if (d % 11 !== 5) days.push(d);
  const x = days.map((d) => Math.sin((d - 20000) / 2) + 0.8 * Math.sin((d - 20000) * 2.3));
  const y = days.map((d) => Math.sin((d - 20000) / 2 + 0.4) + 0.9 * Math.cos((d - 20000) * 1.7));
  const c = adjustedCorrelation({
    days,
    x,
    y,
    lag: 1,
    request: "weekday_trend",
    method: "pearson",
  });
  assert.equal(c.n, 82);
  near(c.r, 0.5598576324103867, 1e-12);
  near(c.nEff, 16.207440187596408, 1e-9);
  near(c.p, 0.11133598710294866, 1e-9);
  near(c.ciLow, -0.1528358260027178, 1e-9);
  near(c.ciHigh, 0.8894516352648174, 1e-9);
});

Deno.test("autocorrelations() skips gaps and zeroes lags with too few pairs", () => {
  const days = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const alternating = days.map((d) => (d % 2 === 0 ? 1 : -1));
  const acf = autocorrelations(days, alternating, 3);
  near(acf[0], -1);
  near(acf[1], 1);
  assert.equal(acf[2], 0); // 9 pairs at lag 3 < MIN_ACF_PAIRS
  assert.deepEqual(Array.from(autocorrelations(days, days.map(() => 2), 2)), [0, 0]);
});

Deno.test("effectiveSampleSize() gives the AR(1) closed form and clamps to [2, n]", () => {
  // ρ_k = 0.5^k on both sides, n large: n_eff/n → (1 − 0.25)/(1 + 0.25) = 0.6 (statistics.md §1)
  const n = 1_000_000;
  const acf = Array.from({ length: 14 }, (_, k) => 0.5 ** (k + 1));
  near(effectiveSampleSize(n, acf, acf) / n, 0.6, 1e-5);
  // one series' mean: (1 − 0.5)/(1 + 0.5) = 1/3 (lags 9–14, 0.5^k < 1.96/√n, are screened out)
  near(effectiveSizeOfMean(n, acf) / n, 1 / 3, 1e-3);
  assert.equal(effectiveSizeOfMean(100, [0.19, 0.5]), 100 / (1 + 2 * 0.98 * 0.5));
  assert.equal(effectiveSampleSize(90, [-0.5], [0.5]), 90);
  assert.equal(effectiveSampleSize(20, [1, 1, 1], [1, 1, 1]), 20 / (1 + 2 * (0.95 + 0.9 + 0.85)));
  assert.equal(effectiveSampleSize(20, Array(14).fill(1), Array(14).fill(1)), 2);
  // a lag counts only when both autocorrelations clear ±1.96/√n (0.196 at n = 100)
  assert.equal(effectiveSampleSize(100, [0.19, 0.5], [0.9, 0.5]), 100 / (1 + 2 * 0.98 * 0.25));
});

Deno.test("correlationInference() equals the iid formulas when n_eff = n and k = 0", () => {
  const inf = correlationInference(0.42, 90, 0);
  near(inf.p, correlationP(0.42, 90), 1e-15);
  const [lo, hi] = fisherCi95(0.42, 90);
  near(inf.ciLow, lo, 1e-15);
  near(inf.ciHigh, hi, 1e-15);
  assert.ok(Number.isNaN(correlationInference(0.3, 9, 7).p)); // df 0
  assert.ok(correlationInference(0.42, 45, 7).p > inf.p);
});

Deno.test("benjaminiYekutieli() multiplies BH by c(m) and keeps NaN out of m", () => {
  near(harmonicNumber(6), 2.45, 1e-12);
  const q = benjaminiYekutieli([0.01, 0.02, 0.03, 0.04, 0.05, 0.5]);
  for (let i = 0; i < 5; i++) near(q[i], 0.147, 1e-12);
  assert.equal(q[5], 1);
  const bh = benjaminiHochbergQ([0.01, NaN, 0.04]);
  near(bh[0], 0.02);
  assert.ok(Number.isNaN(bh[1]));
  near(bh[2], 0.04);
});

Deno.test("confidenceFromQ() uses q and n_eff, not raw p", () => {
  assert.equal(confidenceFromQ(0.005, 40), "high");
  assert.equal(confidenceFromQ(0.005, 25), "medium");
  assert.equal(confidenceFromQ(0.05, 100), "medium");
  assert.equal(confidenceFromQ(0.08, 100), "low");
});

Deno.test("reportP() keeps two significant digits and floors at < 0.001", () => {
  assert.deepEqual(reportP(2e-26), { value: 0.001, text: "< 0.001" });
  assert.deepEqual(reportP(0.00096), { value: 0.001, text: "< 0.001" });
  assert.deepEqual(reportP(0.04234), { value: 0.042, text: "0.042" });
  assert.deepEqual(reportP(0.0042), { value: 0.004, text: "0.004" });
  assert.deepEqual(reportP(0.0496), { value: 0.05, text: "0.05" });
  assert.deepEqual(reportP(0.999), { value: 1, text: "1" });
  assert.deepEqual(reportP(NaN), { value: null, text: "n/a" });
});

Deno.test("mannKendallHamedRao() inflates Var(S) by significant rank autocorrelation", () => {
  const days = Array.from({ length: 60 }, (_, i) => 20000 + i);
  const v = days.map((_, i) => 0.02 * i + Math.sin(i / 3));
  const plain = mannKendall(v);
  const full = mannKendallHamedRao(days, v);
  assert.equal(full.s, 356);
  near(full.slope, 0.013776683103763954, 1e-12);
  near(full.inflation, 1); // the full-lag sum is negative here: floored at 1
  near(full.p, plain.p, 1e-15);
  near(full.p, 0.02356400189960628, 1e-9);
  const three = mannKendallHamedRao(days, v, 3);
  near(three.inflation, 5.0771718197583615, 1e-9);
  near(three.z, 1.004840284137653, 1e-9);
  near(three.p, 0.31497376269641997, 1e-9);
});

Deno.test("removeWeekdayMeans() removes a weekly profile and keeps a trend", () => {
  const days = Array.from({ length: 56 }, (_, i) => 20000 + i);
  const values = days.map((d, i) => [0, 1, 2, 0, 0, 3, 4][weekdayOf(d)] + 0.1 * i);
  const out = removeWeekdayMeans(days, values);
  // what remains is the trend minus its per-weekday mean: slope 0.1/day, exactly 0.7 per week
  for (let i = 7; i < out.length; i++) near(out[i] - out[i - 7], 0.7, 1e-12);
});
