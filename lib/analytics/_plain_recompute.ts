/**
 * The stated numbers of `get_correlation`, `get_factor_effect` and `get_trend` recomputed from a
 * record's raw values by a separate, deliberately plain implementation — dense least squares by
 * Gaussian elimination, O(n²) ranks, autocorrelations and AR(1) sums, Theil–Sen by sorting every
 * slope, the t and normal tails by Simpson integration of the density — written from the
 * documented methods (statistics.md §1–§5, content/docs/mcp-tools.md "Calibrated at short
 * windows", each tool's `definition`), never from the production analytics code. The one
 * recomputation of the project: lib/analytics/correlation_recompute_test.ts checks the unrounded
 * figures of the sandbox member with it, and `deno task sim` (lib/coach/_simulation.ts) each
 * stated number of simulated members to the last reported digit (issue #20 "Targets"). Not used
 * at run time.
 */

import { weekdayOf } from "../foundation/dates.ts";
import type { MemberRecord } from "../record/types.ts";

/** Pairs (A on d, B on d + lag) inside the last `days` days, both logged, as plain arrays. */
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

/** The weekdays on which `design` has values, when each has at least 4; else null. */
function weekdaysUsed(design: number[]): number[] | null {
  const count = (w: number) => design.filter((d) => weekdayOf(d) === w).length;
  const used = [0, 1, 2, 3, 4, 5, 6].filter((w) => count(w) > 0);
  return used.length >= 2 && used.every((w) => count(w) >= 4) ? used : null;
}

/** Residuals of y on weekday indicators + day number (or intercept + weekend + day number). */
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

const avg = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;

function pearsonR(x: number[], y: number[]): number {
  const mx = avg(x), my = avg(y);
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
  const m = avg(v);
  const c0 = v.reduce((s, x) => s + (x - m) ** 2, 0) / v.length;
  let sum = 0, pairs = 0;
  for (let i = 0; i < v.length; i++) {
    for (let j = i + 1; j < v.length && days[j] - days[i] <= k; j++) {
      if (days[j] - days[i] === k) {
        sum += (v[i] - m) * (v[j] - m);
        pairs++;
      }
    }
  }
  return pairs < 10 ? 0 : Math.max(-1, Math.min(1, sum / pairs / c0));
}

/** The screened multi-lag n_eff: n / (1 + 2 Σ (1 − k/n) ρx(k) ρy(k)) over significant lags. */
function screenedN(days: number[], x: number[], y: number[]): number {
  const n = x.length, bound = 1.959963984540054 / Math.sqrt(n);
  let sum = 0;
  for (let k = 1; k <= Math.min(14, Math.floor(n / 5)); k++) {
    const rx = acfAt(days, x, k), ry = acfAt(days, y, k);
    if (Math.abs(rx) > bound && Math.abs(ry) > bound) sum += (1 - k / n) * rx * ry;
  }
  return Math.max(2, Math.min(n, n / (1 + 2 * sum)));
}

/**
 * φ of the #20 definition: the lag-1 autocorrelation over consecutive days (successive values up
 * to 7 days apart when under 5 such pairs, then φ = r1^(1/mean gap)), bias-corrected by solving
 * φ = r1 + (2 + 4φ)/n, clamped to [0, 0.95]; for a trend raised toward 0.5 with the weight of 20
 * pairs, never lowered.
 */
function persistence(days: number[], v: number[], raise: boolean): number {
  const n = v.length, m = avg(v);
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

/**
 * n_eff of two series' pairs: the screened multi-lag count, and under 40 pairs the smaller of it
 * and the AR(1) count n² / Σ_ij (φa·φb)^|d_i − d_j| (issue #20).
 */
function effectiveN(days: number[], x: number[], y: number[]): number {
  const n = x.length, screened = screenedN(days, x, y);
  if (n >= 40) return screened;
  const phiProduct = persistence(days, x, false) * persistence(days, y, false);
  let quad = 0;
  for (const di of days) for (const dj of days) quad += phiProduct ** Math.abs(di - dj);
  return Math.min(screened, Math.max(2, Math.min(n, (n * n) / quad)));
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

/** 1 − 2∫₀^|z| f(u) du by Simpson's rule on 20,000 intervals. */
function twoSided(f: (u: number) => number, z: number): number {
  const n = 20000, h = Math.abs(z) / n;
  let s = f(0) + f(Math.abs(z));
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(i * h);
  return Math.max(0, 1 - 2 * (s * h) / 3);
}

function tTwoSided(t: number, df: number): number {
  const c = Math.exp(lnGamma((df + 1) / 2) - lnGamma(df / 2)) / Math.sqrt(df * Math.PI);
  return twoSided((u) => c * (1 + (u * u) / df) ** (-(df + 1) / 2), t);
}

function normalTwoSided(z: number): number {
  return twoSided((u) => Math.exp(-u * u / 2) / Math.sqrt(2 * Math.PI), z);
}

/** A recomputed correlation (Spearman on weekday- and trend-adjusted values). */
export interface PlainCorrelation {
  n: number;
  /** Nuisance terms of the adjustment: (weekday groups − 1) + 1 for the trend. */
  k: number;
  r: number;
  nEff: number;
  p: number;
}

/** `get_correlation`'s defaults (Spearman, weekday_trend) recomputed over the last `days` days. */
export function plainCorrelation(
  record: MemberRecord,
  o: { a: string; b: string; lag: number; days: number },
): PlainCorrelation {
  const p = pairsOf(record, o.a, o.b, o.lag, o.days);
  const n = p.x.length;
  if (n < 10) return { n, k: NaN, r: NaN, nEff: NaN, p: NaN };
  // the model is chosen once, from A's days, and applied to both sides
  const ex = ranks(weekdayTrendResiduals(p.days, p.x, p.days));
  // B's days are A's shifted by the lag: the same weekday counts, permuted
  const bDays = p.days.map((d) => d + o.lag);
  const ey = ranks(weekdayTrendResiduals(bDays, p.y, bDays));
  const used = weekdaysUsed(p.days);
  const k = used ? used.length : 2;
  const r = pearsonR(ex, ey);
  const nEff = effectiveN(p.days, ex, ey);
  const df = nEff - 2 - k;
  return { n, k, r, nEff, p: tTwoSided(r * Math.sqrt(df / (1 - r * r)), df) };
}

/** A recomputed factor effect (outcome residuals on factor days against the others). */
export interface PlainFactor {
  withN: number;
  withoutN: number;
  /** Mean outcome residual on factor days minus on the others. */
  diff: number;
  g: number;
  nEff: number;
  p: number;
}

/** `get_factor_effect` for a yes/no factor (weekday_trend, no threshold) over the last `days`. */
export function plainFactorEffect(
  record: MemberRecord,
  o: { factor: string; outcome: string; lag: number; days: number },
): PlainFactor {
  const p = pairsOf(record, o.factor, o.outcome, o.lag, o.days);
  const bDays = p.days.map((d) => d + o.lag);
  const res = weekdayTrendResiduals(bDays, p.y, bDays);
  const w = res.filter((_, i) => p.x[i] === 1), wo = res.filter((_, i) => p.x[i] === 0);
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
  const nEff = screenedN(p.days, p.x, res);
  return {
    withN: w.length,
    withoutN: wo.length,
    diff: avg(w) - avg(wo),
    g,
    nEff,
    p: normalTwoSided(z * Math.sqrt(nEff / n)),
  };
}

/** A recomputed trend: the windows' numbers, the slope and the persistence-corrected test. */
export interface PlainTrend {
  nCurrent: number;
  nPrevious: number;
  currentMean: number;
  previousMean: number;
  slopePerWeek: number;
  /** Mann–Kendall S (ties by tolerance) over both windows. */
  s: number;
  /** φ raised toward 0.5; the variance inflation f; n / f; p from Student's t on n/f − 2 − k. */
  phi: number;
  inflation: number;
  nEff: number;
  p: number;
}

/**
 * `get_trend`'s windows, means, Theil–Sen slope and (default `weekday_autocorrelation`) test for
 * a numeric (not time-of-day) column, after its `definition`.
 */
export function plainTrend(record: MemberRecord, o: { metric: string; days: number }): PlainTrend {
  const values = record.values.get(o.metric)!;
  const start = record.today - 2 * o.days + 1, split = record.today - o.days + 1;
  const days: number[] = [], ys: number[] = [];
  for (let d = start; d <= record.today; d++) {
    const v = values.get(d);
    if (v === undefined || v === "skip") continue;
    days.push(d);
    ys.push(typeof v === "boolean" ? (v ? 1 : 0) : v);
  }
  const before = ys.filter((_, i) => days[i] < split),
    after = ys.filter((_, i) => days[i] >= split);
  return {
    nCurrent: after.length,
    nPrevious: before.length,
    currentMean: avg(after),
    previousMean: avg(before),
    slopePerWeek: theilSen(days, ys) * 7,
    ...trendTest(days, ys),
  };
}

/** The median of every pairwise slope. */
function theilSen(days: number[], ys: number[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < ys.length; i++) {
    for (let j = i + 1; j < ys.length; j++) slopes.push((ys[j] - ys[i]) / (days[j] - days[i]));
  }
  slopes.sort((a, b) => a - b);
  const mid = slopes.length / 2;
  return slopes.length % 2 ? slopes[Math.floor(mid)] : (slopes[mid - 1] + slopes[mid]) / 2;
}

/** Residuals of y on one mean per weekday present (≥ 4 values each), else weekend/working. */
function weekdayResiduals(days: number[], y: number[]): number[] {
  const used = weekdaysUsed(days);
  const group = (d: number) => used ? weekdayOf(d) : weekdayOf(d) >= 5 ? 1 : 0;
  return y.map((v, i) => v - avg(y.filter((_, j) => group(days[j]) === group(days[i]))));
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

/** Mann–Kendall S and its tie-corrected variance, differences within 1e-9 × max |value| tied. */
function mannKendall(v: number[]): { s: number; varS: number } {
  const n = v.length, tol = 1e-9 * Math.max(...v.map(Math.abs));
  let s = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = v[j] - v[i];
      s += d > tol ? 1 : d < -tol ? -1 : 0;
    }
  }
  const sorted = [...v].sort((a, b) => a - b);
  let ties = 0;
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && sorted[j] - sorted[i] <= tol) j++;
    ties += (j - i) * (j - i - 1) * (2 * (j - i) + 5);
    i = j;
  }
  return { s, varS: (n * (n - 1) * (2 * n + 5) - ties) / 18 };
}

/**
 * The test of `get_trend`'s definition written out: Mann–Kendall on the weekday-demeaned values,
 * Var(S) × f, f = Σ_ij t̃_i t̃_j φ^|d_i − d_j| / Σ t̃_i² (at least 1), φ from the ranks of the
 * residuals on weekday means and a linear trend, z = (S − sign S)/√(Var(S)·f), t on n/f − 2 − k.
 */
function trendTest(days: number[], y: number[]) {
  const n = y.length;
  if (n < 4) return { s: NaN, phi: NaN, inflation: NaN, nEff: NaN, p: NaN };
  const { s, varS } = mannKendall(weekdayResiduals(days, y));
  const phi = persistence(days, tolerantRanks(weekdayTrendResiduals(days, y, days)), true);
  const mean = avg(days);
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) {
    den += (days[i] - mean) ** 2;
    for (let j = 0; j < n; j++) {
      num += (days[i] - mean) * (days[j] - mean) * phi ** Math.abs(days[i] - days[j]);
    }
  }
  const f = Math.max(1, num / den), used = weekdaysUsed(days);
  const df = n / f - 2 - (used ? used.length - 1 : 1);
  const p = varS > 0 ? tTwoSided((s - Math.sign(s)) / Math.sqrt(varS * f), df) : NaN;
  return { s, phi, inflation: f, nEff: n / f, p };
}

/**
 * Benjamini–Hochberg q-values written out: q(i) = min over j ≥ i of m·p(j)/j, at most 1; with
 * `yekutieli`, Benjamini–Yekutieli: the same with m·(1 + 1/2 + … + 1/m).
 */
export function plainFalseDiscoveryQ(ps: number[], yekutieli = false): number[] {
  let c = 1;
  if (yekutieli) { for (let i = 2; i <= ps.length; i++) c += 1 / i; }
  const order = ps.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const q = new Array<number>(ps.length);
  let running = 1;
  for (let k = order.length - 1; k >= 0; k--) {
    running = Math.min(running, (ps.length * c * order[k].p) / (k + 1));
    q[order[k].i] = running;
  }
  return q;
}

/**
 * Whether a stated number agrees with the recomputed one to its last reported digit: the stated
 * value is within half a unit of that digit (plus float slack), `dp` decimals or `sig` significant
 * digits. A p stated as the floor ("< 0.001", value 0.001) agrees with anything below it.
 */
export function agrees(
  stated: number | null,
  want: number,
  digits: { dp?: number; sig?: number; pFloor?: boolean },
): boolean {
  if (stated === null || !Number.isFinite(want)) return stated === null || !Number.isFinite(want);
  if (digits.pFloor && stated === 0.001 && want < 0.001) return true;
  const unit = digits.dp !== undefined
    ? 10 ** -digits.dp
    : 10 ** (Math.floor(Math.log10(Math.abs(want) || 1)) - (digits.sig! - 1));
  return Math.abs(stated - want) <= unit / 2 + 1e-9 * Math.max(1, Math.abs(want));
}

/** The digits `reportP` keeps: two significant, at most three decimals. */
export function pDigits(p: number): { dp: number; pFloor: true } {
  return { dp: Math.min(3, 1 - Math.floor(Math.log10(Math.max(p, 1e-3)))), pFloor: true };
}
