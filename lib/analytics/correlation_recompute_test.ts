/**
 * The adjusted correlation, the trend test (issue #20) and the adjusted factor effect recomputed
 * from the sandbox member's raw values by a separate, deliberately plain implementation (dense
 * least squares by Gaussian elimination, O(n²) ranks and autocorrelations, the t and normal tails
 * by Simpson integration of the density), and the issue #12 audit's figures reproduced: the weekday artefacts of the
 * unadjusted screen vanish once weekday means go.
 */

import assert from "node:assert/strict";
import { weekdayOf } from "../foundation/dates.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getCorrelation } from "../tools/get_correlation.ts";
import { getTrend } from "../tools/get_trend.ts";
import { correlate } from "./correlation.ts";
import { computeTrend } from "./trend.ts";
import { factorEffect } from "./factor_effect.ts";
import type { MemberRecord } from "../record/types.ts";

const member = syntheticMember();

/** Pairs (A on d, B on d + lag) over the window, both logged, as plain arrays. */
function pairsOf(record: MemberRecord, a: string, b: string, lag: number, days: number) {
  const va = record.values.get(a)!, vb = record.values.get(b)!;
  const out = { days: [] as number[], x: [] as number[], y: [] as number[] };
  const start = record.today - days + 1;
  for (let d = start; d <= record.today; d++) {
    if (d + lag < start || d + lag > record.today) continue;
    const x = va.get(d), y = vb.get(d + lag);
    if (x === undefined || x === "skip" || y === undefined || y === "skip") continue;
    out.days.push(d);
    out.x.push(typeof x === "boolean" ? (x ? 1 : 0) : x);
    out.y.push(typeof y === "boolean" ? (y ? 1 : 0) : y);
  }
  return out;
}

/** Solves A·β = b by Gaussian elimination with partial pivoting (A is small and dense). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r][col] / m[col][col];
      for (let c = col; c <= n; c++) m[r][c] -= f * m[col][c];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** The weekdays (0 = Monday) on which `design` has values, when each has at least 4; else null. */
function weekdaysUsed(design: number[]): number[] | null {
  const count = (w: number) => design.filter((d) => weekdayOf(d) === w).length;
  const used = [0, 1, 2, 3, 4, 5, 6].filter((w) => count(w) > 0);
  return used.length >= 2 && used.every((w) => count(w) >= 4) ? used : null;
}

/**
 * Residuals of y on one indicator per weekday present + the day number (normal equations), or —
 * when some present weekday of `design` has under 4 values — on intercept + weekend indicator +
 * day number.
 */
function weekdayTrendResiduals(days: number[], y: number[], design: number[]): number[] {
  const used = weekdaysUsed(design);
  const rows = days.map((d) =>
    used ? [...used.map((w) => weekdayOf(d) === w ? 1 : 0), d] : [1, weekdayOf(d) >= 5 ? 1 : 0, d]
  );
  const p = rows[0].length;
  const xtx = Array.from(
    { length: p },
    (_, i) => Array.from({ length: p }, (_, j) => rows.reduce((s, r) => s + r[i] * r[j], 0)),
  );
  const xty = Array.from({ length: p }, (_, i) => rows.reduce((s, r, k) => s + r[i] * y[k], 0));
  const beta = solve(xtx, xty);
  return y.map((v, k) => v - rows[k].reduce((s, x, i) => s + x * beta[i], 0));
}

/** Average ranks by counting (O(n²)). */
function ranks(xs: number[]): number[] {
  return xs.map((v) => {
    const below = xs.filter((w) => w < v).length, tied = xs.filter((w) => w === v).length;
    return below + (tied + 1) / 2;
  });
}

function pearsonR(x: number[], y: number[]): number {
  const mx = x.reduce((s, v) => s + v, 0) / x.length, my = y.reduce((s, v) => s + v, 0) / y.length;
  let sxy = 0, sxx = 0, syy = 0;
  x.forEach((v, i) => {
    sxy += (v - mx) * (y[i] - my);
    sxx += (v - mx) ** 2;
    syy += (y[i] - my) ** 2;
  });
  return sxy / Math.sqrt(sxx * syy);
}

/** ρ(k) over value pairs exactly k days apart: [Σ e_i e_j / n_k] / [Σ e² / n]; 0 below 10 pairs. */
function acfAt(days: number[], v: number[], k: number): number {
  const m = v.reduce((s, x) => s + x, 0) / v.length;
  const c0 = v.reduce((s, x) => s + (x - m) ** 2, 0) / v.length;
  let sum = 0, pairs = 0;
  for (let i = 0; i < v.length; i++) {
    for (let j = 0; j < v.length; j++) {
      if (days[j] - days[i] === k) {
        sum += (v[i] - m) * (v[j] - m);
        pairs++;
      }
    }
  }
  return pairs < 10 ? 0 : Math.max(-1, Math.min(1, sum / pairs / c0));
}

/** ln Γ(x) by shifting to x ≥ 10 and Stirling's series. */
function lnGamma(x: number): number {
  let shift = 0;
  while (x < 10) {
    shift += Math.log(x);
    x += 1;
  }
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) -
    1 / (360 * x ** 3) + 1 / (1260 * x ** 5) - shift;
}

/** Two-sided Student-t p: 1 − 2∫₀^|t| f(u) du, Simpson's rule on 20,000 intervals. */
function tTwoSided(t: number, df: number): number {
  const c = Math.exp(lnGamma((df + 1) / 2) - lnGamma(df / 2)) / Math.sqrt(df * Math.PI);
  const f = (u: number) => c * (1 + (u * u) / df) ** (-(df + 1) / 2);
  const n = 20000, h = Math.abs(t) / n;
  let s = f(0) + f(Math.abs(t));
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(i * h);
  return 1 - 2 * (s * h) / 3;
}

/** The whole recipe of statistics.md §1/§3 for a Spearman correlation, written out plainly. */
function recompute(a: string, b: string, lag: number, days: number) {
  const p = pairsOf(member, a, b, lag, days);
  const n = p.x.length;
  // the model is chosen once, from A's days, and applied to both sides
  const ex = ranks(weekdayTrendResiduals(p.days, p.x, p.days));
  // B's days are A's shifted by the lag: the same weekday counts, permuted
  const bDays = p.days.map((d) => d + lag);
  const ey = ranks(weekdayTrendResiduals(bDays, p.y, bDays));
  const used = weekdaysUsed(p.days);
  const k = used ? used.length : 2; // (groups − 1) + 1 for the trend
  const r = pearsonR(ex, ey);
  const bound = 1.959963984540054 / Math.sqrt(n);
  let sum = 0;
  for (let j = 1; j <= Math.min(14, Math.floor(n / 5)); j++) {
    const rx = acfAt(p.days, ex, j), ry = acfAt(p.days, ey, j);
    if (Math.abs(rx) > bound && Math.abs(ry) > bound) sum += (1 - j / n) * rx * ry;
  }
  const screened = Math.max(2, Math.min(n, n / (1 + 2 * sum)));
  // issue #20: under 40 pairs, also the AR(1) count n² / Σ_ij (φa·φb)^|d_i − d_j|
  const phiProduct = persistence(p.days, ex, false) * persistence(p.days, ey, false);
  let quad = 0;
  for (const di of p.days) for (const dj of p.days) quad += phiProduct ** Math.abs(di - dj);
  const model = Math.max(2, Math.min(n, (n * n) / quad));
  const nEff = n >= 40 ? screened : Math.min(screened, model);
  const df = nEff - 2 - k;
  return { n, k, r, nEff, p: tTwoSided(r * Math.sqrt(df / (1 - r * r)), df) };
}

/**
 * φ of the #20 definition: the lag-1 autocorrelation over consecutive days (successive values up
 * to 7 days apart when under 5 such pairs, then φ = r1^(1/mean gap)), bias-corrected by solving
 * φ = r1 + (2 + 4φ)/n, clamped to [0, 0.95], for a trend raised toward 0.5 with weight 20 pairs.
 */
function persistence(days: number[], v: number[], raise: boolean): number {
  const n = v.length, m = v.reduce((s, x) => s + x, 0) / n;
  const c0 = v.reduce((s, x) => s + (x - m) ** 2, 0) / n;
  const lagOne = (maxGap: number) => {
    let sum = 0, pairs = 0, gaps = 0;
    for (let i = 0; i + 1 < n; i++) {
      const gap = days[i + 1] - days[i];
      if (gap > maxGap) continue;
      sum += (v[i] - m) * (v[i + 1] - m);
      pairs++;
      gaps += gap;
    }
    return { r1: sum / pairs / c0, pairs, gap: gaps / pairs };
  };
  let est = lagOne(1);
  if (est.pairs < 5) est = lagOne(7);
  let phi = Math.max(0, Math.min(0.95, (est.r1 + 2 / n) / (1 - 4 / n)));
  if (raise) phi = Math.max(phi, (est.pairs * phi + 20 * 0.5) / (est.pairs + 20));
  return Math.min(0.95, phi ** (1 / est.gap));
}

/** Residuals of y on one indicator per weekday present (≥ 4 values each), else weekend/working. */
function weekdayResiduals(days: number[], y: number[]): number[] {
  const used = weekdaysUsed(days);
  const group = (d: number) => used ? weekdayOf(d) : weekdayOf(d) >= 5 ? 1 : 0;
  return y.map((v, i) => {
    const same = y.filter((_, j) => group(days[j]) === group(days[i]));
    return v - same.reduce((s, x) => s + x, 0) / same.length;
  });
}

/**
 * Average ranks with values within 1e-9 × the largest |value| of a tie group's first value tied
 * (#20 item 12: residuals of equal logged values differ in the last bits).
 */
function tolerantRanks(xs: number[]): number[] {
  const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
  const tol = 1e-9 * Math.max(...xs.map(Math.abs));
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length;) {
    let j = i + 1;
    while (j < order.length && xs[order[j]] - xs[order[i]] <= tol) j++;
    for (let k = i; k < j; k++) out[order[k]] = (i + j + 1) / 2;
    i = j;
  }
  return out;
}

/** get_trend's test of the #20 definition, written out plainly (O(n²) throughout). */
function recomputeTrend(metric: string, window: number) {
  const values = member.values.get(metric)!;
  const days: number[] = [], y: number[] = [];
  for (let d = member.today - 2 * window + 1; d <= member.today; d++) {
    const v = values.get(d);
    if (typeof v === "number") {
      days.push(d);
      y.push(v);
    }
  }
  const n = y.length, adjusted = weekdayResiduals(days, y);
  const tol = 1e-9 * Math.max(...adjusted.map(Math.abs));
  let s = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = adjusted[j] - adjusted[i];
      s += d > tol ? 1 : d < -tol ? -1 : 0;
    }
  }
  const sorted = [...adjusted].sort((a, b) => a - b);
  let ties = 0;
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && sorted[j] - sorted[i] <= tol) j++;
    ties += (j - i) * (j - i - 1) * (2 * (j - i) + 5);
    i = j;
  }
  const varS = (n * (n - 1) * (2 * n + 5) - ties) / 18;
  const phi = persistence(days, tolerantRanks(weekdayTrendResiduals(days, y, days)), true);
  const mean = days.reduce((a, d) => a + d, 0) / n;
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) {
    den += (days[i] - mean) ** 2;
    for (let j = 0; j < n; j++) {
      num += (days[i] - mean) * (days[j] - mean) * phi ** Math.abs(days[i] - days[j]);
    }
  }
  const f = Math.max(1, num / den);
  const used = weekdaysUsed(days);
  const k = used ? used.length - 1 : 1;
  const df = n / f - 2 - k;
  const z = (s - Math.sign(s)) / Math.sqrt(varS * f);
  return { s, phi, f, nEff: n / f, p: tTwoSided(z, df) };
}

for (const [metric, window] of [["sleep_hours", 28], ["weight_kg", 28], ["steps", 90]] as const) {
  Deno.test(`recomputation: get_trend ${metric} over ${window} days matches a plain recomputation`, () => {
    const want = recomputeTrend(metric, window);
    const column = member.columns.find((c) => c.key === metric)!;
    const got = computeTrend({
      record: member,
      column,
      current: { start: member.today - window + 1, end: member.today },
    });
    assert.equal(got.s, want.s);
    assert.ok(Math.abs(got.phi - want.phi) < 1e-9, `φ ${got.phi} vs ${want.phi}`);
    assert.ok(Math.abs(got.inflation - want.f) < 1e-6, `f ${got.inflation} vs ${want.f}`);
    assert.ok(Math.abs(got.p - want.p) <= 1e-6 * Math.max(want.p, 1e-3), `p ${got.p} vs ${want.p}`);
    const tool = getTrend.run(member, getTrend.input.parse({ metric, days: window }));
    assert.equal(tool.n_eff, Math.round(want.nEff * 10) / 10);
    assert.equal(tool.persistence, Math.round(want.phi * 100) / 100);
    // two significant digits, at most three decimals (statistics.md §6)
    const decimals = Math.min(3, 1 - Math.floor(Math.log10(want.p)));
    const printed = Math.round(want.p * 10 ** decimals) / 10 ** decimals;
    if (want.p >= 0.001) assert.equal(tool.p_value, printed);
    else assert.equal(tool.p_text, "< 0.001");
  });
}

for (
  const [a, b, lag, days] of [
    ["sleep_hours", "mood", 0, 90],
    ["workout", "mood", 1, 180],
    ["resting_hr", "mood", 0, 180],
    ["weight_kg", "mood", 2, 180],
    ["sleep_hours", "mood", 0, 30], // under 40 pairs: the AR(1) count (#20)
    ["steps", "mood", 1, 35],
  ] as const
) {
  Deno.test(`recomputation: get_correlation ${a} → ${b} lag ${lag} over ${days} days matches a plain recomputation`, () => {
    const want = recompute(a, b, lag, days);
    const range = { start: member.today - days + 1, end: member.today };
    const cols = new Map(member.columns.map((c) => [c.key, c]));
    const got = correlate({
      record: member,
      a: cols.get(a)!,
      b: cols.get(b)!,
      lag,
      range,
      method: "spearman",
      detrend: "weekday_trend",
    });
    assert.equal(got.n, want.n);
    assert.equal(got.nuisance, want.k);
    assert.ok(Math.abs(got.r - want.r) < 1e-9, `r ${got.r} vs ${want.r}`);
    assert.ok(Math.abs(got.nEff - want.nEff) < 1e-6, `n_eff ${got.nEff} vs ${want.nEff}`);
    assert.ok(Math.abs(got.p - want.p) <= 1e-6 * Math.max(want.p, 1e-3), `p ${got.p} vs ${want.p}`);
    // and the tool reports them rounded as statistics.md §6 says
    const tool = getCorrelation.run(
      member,
      getCorrelation.input.parse({ metric_a: a, metric_b: b, lag_days: lag, days }),
    );
    assert.equal(tool.r, Math.round(want.r * 100) / 100);
    assert.equal(tool.n_eff, Math.round(want.nEff * 10) / 10);
    if (want.p >= 0.001) assert.equal(tool.p_value, Number(want.p.toPrecision(2)));
    else assert.equal(tool.p_text, "< 0.001");
  });
}

Deno.test("recomputation: the issue #12 audit's weekday artefacts vanish with weekday means removed", () => {
  // audit (180-day screen): steps → next-day mood 0.42 → −0.04, water → next-day mood 0.33 →
  // 0.08, workout → same-day mood −0.27 → 0.04; ours on the same generator: 0.43 → −0.04,
  // 0.35 → 0.08, −0.29 → 0.01 (weekday) / 0.04 (weekday + trend)
  const cols = new Map(member.columns.map((c) => [c.key, c]));
  const range = { start: member.today - 179, end: member.today };
  const r = (a: string, lag: number, detrend: "none" | "weekday" | "weekday_trend") =>
    Math.round(
      correlate({
        record: member,
        a: cols.get(a)!,
        b: cols.get("mood")!,
        lag,
        range,
        method: "spearman",
        detrend,
      }).r * 100,
    ) / 100;
  assert.deepEqual([r("steps", 1, "none"), r("steps", 1, "weekday")], [0.43, -0.04]);
  assert.deepEqual([r("water_l", 1, "none"), r("water_l", 1, "weekday")], [0.35, 0.08]);
  assert.deepEqual([r("workout", 0, "none"), r("workout", 0, "weekday")], [-0.29, 0.01]);
  assert.equal(r("workout", 0, "weekday_trend"), 0.04);
  // weight (lag 2) → mood was a shared trend (the generator has no such link): the trend term
  // takes it from −0.22 to −0.10, and it is no longer significant
  assert.deepEqual([r("weight_kg", 2, "none"), r("weight_kg", 2, "weekday_trend")], [-0.22, -0.1]);
  const w = correlate({
    record: member,
    a: cols.get("weight_kg")!,
    b: cols.get("mood")!,
    lag: 2,
    range,
    method: "spearman",
    detrend: "weekday_trend",
  });
  assert.ok(w.p > 0.1, `p ${w.p}`);
});

/** Two-sided normal p: 1 − 2∫₀^|z| φ(u) du by Simpson's rule. */
function normalTwoSided(z: number): number {
  const f = (u: number) => Math.exp(-u * u / 2) / Math.sqrt(2 * Math.PI);
  const n = 20000, h = Math.abs(z) / n;
  let s = f(0) + f(Math.abs(z));
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(i * h);
  return 1 - 2 * (s * h) / 3;
}

Deno.test("recomputation: get_factor_effect workout → next-day mood matches a plain recomputation", () => {
  // statistics.md §5: outcome residuals (weekday + trend) compared between factor and other
  // days; Hedges g; Mann–Whitney with ties and continuity, z × √(n_eff/n)
  const p = pairsOf(member, "workout", "mood", 1, 180);
  const bDays = p.days.map((d) => d + 1);
  const res = weekdayTrendResiduals(bDays, p.y, bDays);
  const w = res.filter((_, i) => p.x[i] === 1), wo = res.filter((_, i) => p.x[i] === 0);
  const avg = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
  const ss = (xs: number[]) => xs.reduce((s, v) => s + (v - avg(xs)) ** 2, 0);
  const df = w.length + wo.length - 2;
  const d = (avg(w) - avg(wo)) / Math.sqrt((ss(w) + ss(wo)) / df);
  const g = d * Math.exp(lnGamma(df / 2) - lnGamma((df - 1) / 2)) / Math.sqrt(df / 2);
  const n = res.length, r = ranks([...w, ...wo]);
  const u = r.slice(0, w.length).reduce((s, v) => s + v, 0) - (w.length * (w.length + 1)) / 2;
  const counts = new Map<number, number>();
  for (const v of [...w, ...wo]) counts.set(v, (counts.get(v) ?? 0) + 1);
  const ties = [...counts.values()].reduce((s, t) => s + t ** 3 - t, 0);
  const sigma = Math.sqrt((w.length * wo.length / 12) * (n + 1 - ties / (n * (n - 1))));
  const z = Math.max(0, Math.abs(u - (w.length * wo.length) / 2) - 0.5) / sigma;
  const bound = 1.959963984540054 / Math.sqrt(n);
  let sum = 0;
  for (let k = 1; k <= Math.min(14, Math.floor(n / 5)); k++) {
    const rx = acfAt(p.days, p.x, k), ry = acfAt(p.days, res, k);
    if (Math.abs(rx) > bound && Math.abs(ry) > bound) sum += (1 - k / n) * rx * ry;
  }
  const nEff = Math.max(2, Math.min(n, n / (1 + 2 * sum)));
  const want = { diff: avg(w) - avg(wo), g, p: normalTwoSided(z * Math.sqrt(nEff / n)), nEff };
  const cols = new Map(member.columns.map((c) => [c.key, c]));
  const got = factorEffect({
    record: member,
    factor: cols.get("workout")!,
    outcome: cols.get("mood")!,
    lag: 1,
    range: { start: member.today - 179, end: member.today },
    threshold: null,
    detrend: "weekday_trend",
  });
  assert.deepEqual([got.withN, got.withoutN], [w.length, wo.length]);
  assert.ok(Math.abs(got.adjustedDifference - want.diff) < 1e-9, `${got.adjustedDifference}`);
  assert.ok(Math.abs(got.g - want.g) < 1e-9, `g ${got.g} vs ${want.g}`);
  assert.ok(Math.abs(got.nEff - want.nEff) < 1e-6, `n_eff ${got.nEff} vs ${want.nEff}`);
  assert.ok(Math.abs(got.p - want.p) < 1e-7, `p ${got.p} vs ${want.p}`);
});
