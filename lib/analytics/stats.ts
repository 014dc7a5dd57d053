/**
 * The statistics behind the analytics tools, written from their textbook definitions. Inputs are
 * plain arrays or typed arrays of finite numbers; a statistic that is undefined for its input
 * (the mean of nothing, a correlation with a constant side) is `NaN`, and the tools turn that into
 * `null` plus a `withheld` reason before anything reaches JSON.
 */

/** Arithmetic mean; `NaN` for no values. */
export function mean(xs: ArrayLike<number>): number {
  const n = xs.length;
  if (n === 0) return NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += xs[i];
  return sum / n;
}

/** Sample variance (divisor n − 1); `NaN` for fewer than two values. */
export function variance(xs: ArrayLike<number>): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const m = mean(xs);
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (xs[i] - m) ** 2;
  return ss / (n - 1);
}

/** Sample standard deviation (divisor n − 1); `NaN` for fewer than two values. */
export function sd(xs: ArrayLike<number>): number {
  return Math.sqrt(variance(xs));
}

/** An ascending copy of `xs` as a typed array (numeric sort, not the default string sort). */
export function sortedCopy(xs: ArrayLike<number>): Float64Array {
  // `set` copies without the iterator protocol that makes `Float64Array.from` slow
  const out = new Float64Array(xs.length);
  out.set(xs);
  return out.sort();
}

/**
 * The p-quantile of already ascending-sorted values by linear interpolation between order
 * statistics (Hyndman–Fan type 7, the default of R and NumPy): h = (n − 1)·p, interpolate between
 * the values at ⌊h⌋ and ⌈h⌉. `NaN` for no values.
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** The p-quantile (Hyndman–Fan type 7, see `quantileSorted`); `NaN` for no values. */
export function quantile(xs: ArrayLike<number>, p: number): number {
  return quantileSorted(sortedCopy(xs), p);
}

/** Median (the middle value, or the mean of the two middle values); `NaN` for no values. */
export function median(xs: ArrayLike<number>): number {
  return quantileSorted(sortedCopy(xs), 0.5);
}

/**
 * Median absolute deviation from the median, unscaled (no 1.4826 factor): the robust z of
 * Iglewicz–Hoaglin applies its own 0.6745. `NaN` for no values.
 */
export function mad(xs: ArrayLike<number>): number {
  const m = median(xs);
  const dev = new Float64Array(xs.length);
  for (let i = 0; i < xs.length; i++) dev[i] = Math.abs(xs[i] - m);
  return median(dev);
}

/** Indices of `xs` ordered by value, ascending (stable for equal values). */
function orderOf(xs: ArrayLike<number>): Uint32Array {
  const idx = new Uint32Array(xs.length);
  for (let i = 0; i < idx.length; i++) idx[i] = i;
  return idx.sort((a, b) => xs[a] - xs[b] || a - b);
}

/**
 * Values closer than this share of the sample's largest magnitude are one value (a tie). Removing
 * weekday means leaves equal values a few ulps apart (1.9000000000000004 and 1.9); read as
 * distinct they would flip ranks and Mann–Kendall signs on float noise (issue #20, item 12).
 */
export const TIE_REL_TOL = 1e-9;

/** The absolute tie tolerance of an ascending-sorted sample: `TIE_REL_TOL` × its largest |x|. */
function tieToleranceSorted(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n === 0) return 0;
  return TIE_REL_TOL * Math.max(Math.abs(sorted[0]), Math.abs(sorted[n - 1]));
}

/**
 * The end (exclusive) of the tie group of ascending `sorted` that starts at `i`: the values within
 * `tol` of `sorted[i]`.
 */
function tieGroupEnd(sorted: ArrayLike<number>, i: number, tol: number): number {
  let j = i + 1;
  while (j < sorted.length && sorted[j] - sorted[i] <= tol) j++;
  return j;
}

/**
 * 1-based ranks with ties given the average of the ranks they span (e.g. [10, 20, 20, 30] →
 * [1, 2.5, 2.5, 4]); values within `TIE_REL_TOL` of each other are ties.
 */
export function averageRanks(xs: ArrayLike<number>): Float64Array {
  // A native numeric sort, one pass over tie groups and a binary search per value: several
  // times faster than sorting indices with a JS comparator (the hot path ranks ~90 values twice).
  const n = xs.length;
  const sorted = sortedCopy(xs);
  const tol = tieToleranceSorted(sorted);
  // the rank shared by the tie group holding sorted position k (0-based positions i … j−1 of
  // one group hold ranks i+1 … j, whose average is (i + 1 + j) / 2)
  const groupRank = new Float64Array(n);
  for (let i = 0; i < n;) {
    const j = tieGroupEnd(sorted, i, tol);
    groupRank.fill((i + 1 + j) / 2, i, j);
    i = j;
  }
  const ranks = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = xs[i];
    let lo = 0, hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    ranks[i] = groupRank[lo];
  }
  return ranks;
}

/** Σ (t³ − t) over groups of tied values (within `TIE_REL_TOL`), the tie term of rank tests. */
export function tieTerm(xs: ArrayLike<number>): number {
  const s = sortedCopy(xs);
  const tol = tieToleranceSorted(s);
  let sum = 0;
  let i = 0;
  while (i < s.length) {
    const j = tieGroupEnd(s, i, tol);
    const t = j - i;
    sum += t * t * t - t;
    i = j;
  }
  return sum;
}

/** Pearson's product-moment correlation of paired values; `NaN` if a side is constant or n < 2. */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length;
  if (n < 2 || y.length !== n) return NaN;
  let mx = 0, my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - mx, dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return NaN;
  // rounding can push |r| a hair past 1 for perfectly linear data
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}

/** Spearman's rho: Pearson's r of the average ranks (so ties are handled exactly). */
export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): number {
  return pearson(averageRanks(x), averageRanks(y));
}

// ---------------------------------------------------------------------------------------------
// Special functions

const LANCZOS_G = 7;
const LANCZOS = [
  0.99999999999980993,
  676.5203681218851,
  -1259.1392167224028,
  771.32342877765313,
  -176.61502916214059,
  12.507343278686905,
  -0.13857109526572012,
  9.9843695780195716e-6,
  1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos approximation, g = 7, n = 9; relative error ~1e-15). */
export function logGamma(x: number): number {
  if (x < 0.5) {
    // reflection: Γ(x)Γ(1 − x) = π / sin(πx)
    return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  }
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + LANCZOS_G + 0.5;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

const EPS = 1e-15;
const TINY = 1e-300;
const MAX_ITER = 1000;

/** Continued fraction for the incomplete beta (modified Lentz); converges for x < (a+1)/(a+b+2). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const qab = a + b, qap = a + 1, qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= MAX_ITER; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 ≤ x ≤ 1. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) +
    b * Math.log1p(-x);
  const front = Math.exp(lnFront);
  // the continued fraction converges fast only on one side; use I_x(a,b) = 1 − I_{1−x}(b,a)
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** Series for the lower regularized gamma P(a, x); used for x < a + 1. */
function gammaSeries(a: number, x: number): number {
  let ap = a;
  let sum = 1 / a;
  let del = sum;
  for (let n = 1; n <= MAX_ITER; n++) {
    ap += 1;
    del *= x / ap;
    sum += del;
    if (Math.abs(del) < Math.abs(sum) * EPS) break;
  }
  return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
}

/** Continued fraction for the upper regularized gamma Q(a, x); used for x ≥ a + 1. */
function gammaContinuedFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i <= MAX_ITER; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
}

/** The upper regularized incomplete gamma Q(a, x) = Γ(a, x) / Γ(a), for a > 0 and x ≥ 0. */
export function upperGammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  if (x < a + 1) return 1 - gammaSeries(a, x);
  return gammaContinuedFraction(a, x);
}

// ---------------------------------------------------------------------------------------------
// Distributions

/**
 * Standard normal CDF Φ(z), through erfc(t) = Q(½, t²) so both tails keep full relative
 * precision.
 */
export function normalCdf(z: number): number {
  const tail = 0.5 * upperGammaQ(0.5, (z * z) / 2);
  return z >= 0 ? 1 - tail : tail;
}

/** Two-sided normal p-value P(|Z| ≥ |z|) = erfc(|z|/√2), computed without cancellation. */
export function normalTwoSidedP(z: number): number {
  if (!Number.isFinite(z)) return Number.isNaN(z) ? NaN : 0;
  return upperGammaQ(0.5, (z * z) / 2);
}

/** Two-sided p-value of Student's t with `df` degrees of freedom: I_{df/(df+t²)}(df/2, ½). */
export function studentTTwoSidedP(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** Upper-tail p-value of the chi-square distribution: P(X ≥ x) = Q(df/2, x/2). */
export function chiSquareSf(x: number, df: number): number {
  if (Number.isNaN(x) || !(df > 0)) return NaN;
  return upperGammaQ(df / 2, Math.max(0, x) / 2);
}

// ---------------------------------------------------------------------------------------------
// Correlation inference

/** Two-sided p-value of a correlation r on n pairs, from t = r·√((n−2)/(1−r²)) with n − 2 df. */
export function correlationP(r: number, n: number): number {
  if (Number.isNaN(r) || n < 3) return NaN;
  if (Math.abs(r) >= 1) return 0;
  const t = r * Math.sqrt((n - 2) / (1 - r * r));
  return studentTTwoSidedP(t, n - 2);
}

/** z of the standard normal with 97.5 % below it (for two-sided 95 % intervals). */
export const Z_975 = 1.959963984540054;

/**
 * 95 % confidence interval of a correlation by Fisher's z: tanh(atanh r ± 1.96/√(n−3)). `[NaN,
 * NaN]` when n ≤ 3; `[r, r]` when |r| = 1.
 */
export function fisherCi95(r: number, n: number): [number, number] {
  if (Number.isNaN(r) || n <= 3) return [NaN, NaN];
  if (Math.abs(r) >= 1) return [r, r];
  const z = Math.atanh(r);
  const half = Z_975 / Math.sqrt(n - 3);
  return [Math.tanh(z - half), Math.tanh(z + half)];
}

// ---------------------------------------------------------------------------------------------
// Trend

/**
 * Theil–Sen slope: the median of (y_j − y_i)/(x_j − x_i) over all pairs i < j with x_i ≠ x_j.
 * `NaN` when no such pair exists.
 */
export function theilSenSlope(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length;
  const slopes = new Float64Array((n * (n - 1)) / 2);
  let k = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = x[j] - x[i];
      if (dx !== 0) slopes[k++] = (y[j] - y[i]) / dx;
    }
  }
  // the slopes are scratch, so select in place: O(m) instead of a copy and an O(m log m) sort
  // (the coach runs this over ~16,000 slopes per trend)
  return medianInPlace(slopes.subarray(0, k));
}

/**
 * The k-th smallest of `a` (0-based) by Hoare quickselect, reordering `a` so that everything
 * before k is ≤ it and everything after is ≥ it.
 */
function selectInPlace(a: Float64Array, k: number): number {
  let lo = 0, hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1];
    let i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

/** Median of `a`, reordering it (see `selectInPlace`); `NaN` for no values. Same result as `median`. */
export function medianInPlace(a: Float64Array): number {
  const n = a.length;
  if (n === 0) return NaN;
  const upper = selectInPlace(a, n >> 1);
  if (n % 2 === 1) return upper;
  // everything before n/2 is ≤ the upper middle; the lower middle is the largest of them
  let lower = -Infinity;
  for (let i = 0; i < n >> 1; i++) if (a[i] > lower) lower = a[i];
  return (lower + upper) / 2;
}

/** The Mann–Kendall trend test's statistic, its variance, normal score and two-sided p. */
export interface MannKendall {
  /** S = Σ_{i<j} sign(y_j − y_i). */
  s: number;
  /** Var(S) with the tie correction. */
  varS: number;
  /** (S − sign(S)) / √Var(S), continuity-corrected. */
  z: number;
  /** Two-sided p from the normal approximation. */
  p: number;
}

/**
 * Mann–Kendall test for a monotonic trend in `y` (values in time order): S = Σ_{i<j}
 * sign(y_j − y_i), Var(S) = [n(n−1)(2n+5) − Σ t(t−1)(2t+5)] / 18 over tie groups t (differences
 * within `TIE_REL_TOL` of the largest |y| are ties),
 * z = (S − 1)/√Var for S > 0, (S + 1)/√Var for S < 0, 0 for S = 0; p two-sided normal.
 * All fields `NaN` when Var(S) = 0 (fewer than two distinct values).
 */
export function mannKendall(y: ArrayLike<number>): MannKendall {
  const n = y.length;
  const sorted = sortedCopy(y);
  const tol = tieToleranceSorted(sorted);
  let s = 0;
  for (let i = 0; i < n; i++) {
    const yi = y[i];
    for (let j = i + 1; j < n; j++) {
      const d = y[j] - yi;
      if (d > tol) s++;
      else if (d < -tol) s--;
    }
  }
  let ties = 0;
  let i = 0;
  while (i < n) {
    const j = tieGroupEnd(sorted, i, tol);
    const t = j - i;
    ties += t * (t - 1) * (2 * t + 5);
    i = j;
  }
  const varS = (n * (n - 1) * (2 * n + 5) - ties) / 18;
  if (!(varS > 0)) return { s, varS, z: NaN, p: NaN };
  const z = s === 0 ? 0 : (s - Math.sign(s)) / Math.sqrt(varS);
  return { s, varS, z, p: normalTwoSidedP(z) };
}

// ---------------------------------------------------------------------------------------------
// Group comparisons

/** Result of a Mann–Whitney U test. */
export interface MannWhitney {
  /** U of the first sample: R₁ − n₁(n₁+1)/2. */
  u: number;
  /** Continuity-corrected normal score. */
  z: number;
  /** Two-sided p-value. */
  p: number;
}

/**
 * Mann–Whitney U test, normal approximation with tie correction and continuity correction:
 * U = R₁ − n₁(n₁+1)/2, μ = n₁n₂/2, σ² = n₁n₂/12·[(N+1) − Σ(t³−t)/(N(N−1))],
 * z = (|U − μ| − ½)/σ, p = P(|Z| ≥ z). All values tied (σ = 0) → z = 0, p = 1. `NaN` for an empty
 * sample.
 */
export function mannWhitney(a: ArrayLike<number>, b: ArrayLike<number>): MannWhitney {
  const n1 = a.length, n2 = b.length, n = n1 + n2;
  if (n1 === 0 || n2 === 0) return { u: NaN, z: NaN, p: NaN };
  const pooled = new Float64Array(n);
  pooled.set(a as ArrayLike<number>, 0);
  pooled.set(b as ArrayLike<number>, n1);
  const ranks = averageRanks(pooled);
  let r1 = 0;
  for (let i = 0; i < n1; i++) r1 += ranks[i];
  const u = r1 - (n1 * (n1 + 1)) / 2;
  const mu = (n1 * n2) / 2;
  const sigma2 = ((n1 * n2) / 12) * (n + 1 - tieTerm(pooled) / (n * (n - 1)));
  if (!(sigma2 > 0)) return { u, z: 0, p: 1 };
  const z = Math.max(0, Math.abs(u - mu) - 0.5) / Math.sqrt(sigma2);
  return { u, z, p: Math.min(1, normalTwoSidedP(z)) };
}

/** Result of a Kruskal–Wallis test. */
export interface KruskalWallis {
  /** Tie-corrected H statistic. */
  h: number;
  /** Degrees of freedom: number of non-empty groups − 1. */
  df: number;
  /** Upper-tail chi-square p-value of H. */
  p: number;
}

/**
 * Kruskal–Wallis H test over the non-empty groups: H = 12/(N(N+1))·Σ R_i²/n_i − 3(N+1), divided by
 * the tie correction 1 − Σ(t³−t)/(N³−N); p = P(χ²_{k−1} ≥ H). `NaN` with fewer than two non-empty
 * groups or when every value is tied.
 */
export function kruskalWallis(groups: ArrayLike<number>[]): KruskalWallis {
  const used = groups.filter((g) => g.length > 0);
  const k = used.length;
  let n = 0;
  for (const g of used) n += g.length;
  if (k < 2) return { h: NaN, df: k - 1, p: NaN };
  const pooled = new Float64Array(n);
  let offset = 0;
  for (const g of used) {
    pooled.set(g as ArrayLike<number>, offset);
    offset += g.length;
  }
  const ranks = averageRanks(pooled);
  let sum = 0;
  offset = 0;
  for (const g of used) {
    let r = 0;
    for (let i = 0; i < g.length; i++) r += ranks[offset + i];
    sum += (r * r) / g.length;
    offset += g.length;
  }
  const correction = 1 - tieTerm(pooled) / (n * n * n - n);
  if (!(correction > 0)) return { h: NaN, df: k - 1, p: NaN };
  const h = ((12 / (n * (n + 1))) * sum - 3 * (n + 1)) / correction;
  return { h, df: k - 1, p: chiSquareSf(h, k - 1) };
}

/**
 * Hedges' g of a versus b: (mean_a − mean_b) / pooled SD, times the exact small-sample correction
 * J(ν) = Γ(ν/2) / (√(ν/2)·Γ((ν−1)/2)) with ν = n_a + n_b − 2 (≈ 1 − 3/(4ν − 1)). `NaN` when either
 * sample has fewer than two values or the pooled SD is 0.
 */
export function hedgesG(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const na = a.length, nb = b.length;
  if (na < 2 || nb < 2) return NaN;
  const df = na + nb - 2;
  const pooled = Math.sqrt(((na - 1) * variance(a) + (nb - 1) * variance(b)) / df);
  if (!(pooled > 0)) return NaN;
  const j = df > 1
    ? Math.exp(logGamma(df / 2) - logGamma((df - 1) / 2)) / Math.sqrt(df / 2)
    : 1 - 3 / (4 * df - 1);
  return ((mean(a) - mean(b)) / pooled) * j;
}

/**
 * Benjamini–Hochberg q-values (adjusted p-values), in the input order: for p sorted ascending,
 * q_(i) = min_{j ≥ i} p_(j)·m/j, capped at 1.
 */
export function benjaminiHochberg(ps: ArrayLike<number>): Float64Array {
  const m = ps.length;
  const order = orderOf(ps);
  const q = new Float64Array(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const i = order[rank - 1];
    running = Math.min(running, (ps[i] * m) / rank);
    q[i] = running;
  }
  return q;
}
