/**
 * Honest-inference primitives for daily series (statistics.md §1–§4, §6): removing weekday
 * structure and trend, effective sample size for autocorrelated days, correlation p-values and
 * intervals on that effective size, Benjamini–Hochberg / Benjamini–Yekutieli q-values, confidence
 * words from q, a Mann–Kendall trend test corrected for autocorrelation, and p/q rounding for
 * output. Pure functions over typed arrays: `days[i]` is the day number carrying `values[i]`, in
 * ascending order; gaps (missing days) are allowed everywhere. Nothing here reads a record.
 */

import { weekdayOf } from "../foundation/dates.ts";
import {
  averageRanks,
  benjaminiHochberg,
  type MannKendall,
  mannKendall,
  mean,
  normalTwoSidedP,
  pearson,
  studentTTwoSidedP,
  theilSenSlope,
  Z_975,
} from "./stats.ts";

// ---------------------------------------------------------------------------------------------
// Removing weekday structure and trend (statistics.md §3)

/**
 * What a caller asks for: remove weekday structure and a linear trend (the tools' default), only
 * the weekday means (the older `detrend: "weekday"` of get_correlation), or nothing.
 */
export type AdjustRequest = "weekday_trend" | "weekday" | "none";

/**
 * What actually ran. `weekday_trend`: one mean per weekday + linear day index (k = 7 with all
 * seven weekdays logged, fewer for a column logged on fewer weekdays — see `nuisanceTerms`);
 * `weekend_trend`: a weekend/weekday dummy + trend (k = 2), used when some weekday has fewer
 * than `MIN_PER_WEEKDAY` values (under ~4 complete weeks each weekday mean rests on too few days);
 * `trend`: linear day index only (k = 1); `weekday` / `weekend`: the same without the trend
 * (k = 6 / 1); `none` (k = 0).
 */
export type AppliedAdjustment =
  | "weekday_trend"
  | "weekend_trend"
  | "trend"
  | "weekday"
  | "weekend"
  | "none";

/** Values each weekday needs before its own mean is removed (≈ 4 complete weeks). */
export const MIN_PER_WEEKDAY = 4;
/** Values each of the weekend and weekday groups needs for the `weekend_trend` fallback. */
export const MIN_PER_WEEKEND_GROUP = 3;

/** Whether an applied adjustment also removes a linear trend. */
function withTrend(applied: AppliedAdjustment): boolean {
  return applied === "weekday_trend" || applied === "weekend_trend" || applied === "trend";
}

/**
 * Picks the adjustment the data supports for values on `days`: the weekday model when every
 * weekday that has values has ≥ `MIN_PER_WEEKDAY` of them and at least two weekdays do (a column
 * logged only on Mon/Wed/Fri/Sun gets four weekday means; an absent weekday has no mean to
 * remove), else the weekend/working-day model when both groups have ≥ 3, else (for
 * `weekday_trend`) a trend alone when there are ≥ 3 days, else none. The trend term comes with a
 * `weekday_trend` request only.
 */
export function chooseAdjustment(
  days: ArrayLike<number>,
  request: AdjustRequest,
): AppliedAdjustment {
  if (request === "none") return "none";
  const trend = request === "weekday_trend";
  const perWeekday = new Int32Array(7);
  for (let i = 0; i < days.length; i++) perWeekday[weekdayOf(days[i])]++;
  const present = perWeekday.filter((c) => c > 0);
  if (present.length >= 2 && present.every((c) => c >= MIN_PER_WEEKDAY)) {
    return trend ? "weekday_trend" : "weekday";
  }
  const weekend = perWeekday[5] + perWeekday[6];
  const working = days.length - weekend;
  if (weekend >= MIN_PER_WEEKEND_GROUP && working >= MIN_PER_WEEKEND_GROUP) {
    return trend ? "weekend_trend" : "weekend";
  }
  return trend && days.length >= 3 ? "trend" : "none";
}

/**
 * Nuisance terms an adjustment spends on values at `days`: one per weekday (or weekend/working)
 * group present beyond the first, plus one for the trend — 7 for the full weekday + trend model.
 */
export function nuisanceTerms(days: ArrayLike<number>, applied: AppliedAdjustment): number {
  const seen = new Set<number>();
  for (let i = 0; i < days.length; i++) seen.add(groupOf(days[i], applied));
  return Math.max(0, seen.size - 1) + (withTrend(applied) ? 1 : 0);
}

/** The group a day falls in under an adjustment: its weekday, weekend (1) or not (0), or one group. */
function groupOf(day: number, applied: AppliedAdjustment): number {
  if (applied === "weekday_trend" || applied === "weekday") return weekdayOf(day);
  if (applied === "weekend_trend" || applied === "weekend") return weekdayOf(day) >= 5 ? 1 : 0;
  return 0;
}

/** Subtracts each value's group mean in place. */
function demeanByGroup(xs: Float64Array, groups: Int32Array) {
  const sum = new Float64Array(7), count = new Int32Array(7);
  for (let i = 0; i < xs.length; i++) {
    sum[groups[i]] += xs[i];
    count[groups[i]]++;
  }
  for (let i = 0; i < xs.length; i++) xs[i] -= sum[groups[i]] / count[groups[i]];
}

/**
 * Ordinary-least-squares residuals of `values` on group intercepts (weekday or weekend dummies)
 * plus one common linear slope in the day number, per `applied`. Computed exactly by
 * Frisch–Waugh–Lovell: demean values and day index within groups, slope β = Σ ṽ·t̃ / Σ t̃², residual
 * ṽ − β·t̃. OLS rather than a robust fit because the partial-correlation df rule (t on
 * n − 2 − k df, statistics.md §1) is derived for OLS residuals; the default Spearman step that
 * follows is what gives robustness to outliers. Returns a new array; `none` copies the values.
 */
export function residualize(
  days: ArrayLike<number>,
  values: ArrayLike<number>,
  applied: AppliedAdjustment,
): Float64Array {
  const n = values.length;
  const out = new Float64Array(n);
  out.set(values);
  if (applied === "none" || n === 0) return out;
  const groups = new Int32Array(n);
  const t = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    groups[i] = groupOf(days[i], applied);
    t[i] = days[i] - days[0];
  }
  demeanByGroup(out, groups);
  if (!withTrend(applied)) return out;
  demeanByGroup(t, groups);
  let sty = 0, stt = 0;
  for (let i = 0; i < n; i++) {
    sty += t[i] * out[i];
    stt += t[i] * t[i];
  }
  const beta = stt > 0 ? sty / stt : 0;
  for (let i = 0; i < n; i++) out[i] -= beta * t[i];
  return out;
}

/** Short reading of an applied adjustment, for `definition` strings and sentences. */
export function adjustmentText(applied: AppliedAdjustment): string {
  switch (applied) {
    case "weekday_trend":
      return "each series' weekday means and linear trend removed (least-squares residuals; " +
        "one mean per weekday the series is logged on)";
    case "weekend_trend":
      return "each series' weekend/weekday difference and linear trend removed (some weekday " +
        "had under 4 values, too few for its own mean)";
    case "trend":
      return "each series' linear trend removed (too few weekend or working days for a " +
        "weekday adjustment)";
    case "weekday":
      return "each series' weekday means removed";
    case "weekend":
      return "each series' weekend/weekday difference removed (some weekday had under 4 values)";
    case "none":
      return "no weekday or trend adjustment";
  }
}

// ---------------------------------------------------------------------------------------------
// Autocorrelation and effective sample size (statistics.md §1)

let dayIndexScratch = new Int32Array(512);

/** Lagged products need this many day pairs before a lag's autocorrelation is used (else 0). */
export const MIN_ACF_PAIRS = 10;

/**
 * Sample autocorrelations ρ(1…maxLag) of a gapped daily series: ρ(k) = [Σ e_i·e_j / n_k] /
 * [Σ e_i² / n] over the n_k value pairs exactly k days apart (e = value − mean). A lag with fewer
 * than `MIN_ACF_PAIRS` pairs gets 0; results are clamped to [−1, 1]. Entry 0 of the result is
 * ρ(1). All zeros for a constant series.
 */
export function autocorrelations(
  days: ArrayLike<number>,
  values: ArrayLike<number>,
  maxLag: number,
): Float64Array {
  const n = values.length;
  const out = new Float64Array(Math.max(0, maxLag));
  if (n < 2 || maxLag < 1) return out;
  let m = 0;
  for (let i = 0; i < n; i++) m += values[i];
  m /= n;
  let c0 = 0;
  for (let i = 0; i < n; i++) c0 += (values[i] - m) ** 2;
  c0 /= n;
  if (!(c0 > 0)) return out;
  // index of each day inside the span, −1 where no value; a scratch buffer reused across calls
  // (the work is synchronous) because the coach makes hundreds of these calls per member
  const first = days[0], span = days[n - 1] - first + 1;
  if (dayIndexScratch.length < span) {
    dayIndexScratch = new Int32Array(Math.max(span, 2 * dayIndexScratch.length));
  }
  const at = dayIndexScratch;
  at.fill(-1, 0, span);
  for (let i = 0; i < n; i++) at[days[i] - first] = i;
  for (let k = 1; k <= maxLag; k++) {
    let sum = 0, pairs = 0;
    for (let i = 0; i < n; i++) {
      const off = days[i] - first + k;
      if (off >= span) break;
      const j = at[off];
      if (j >= 0) {
        sum += (values[i] - m) * (values[j] - m);
        pairs++;
      }
    }
    if (pairs >= MIN_ACF_PAIRS) out[k - 1] = Math.max(-1, Math.min(1, sum / pairs / c0));
  }
  return out;
}

/**
 * How many lags enter the effective-size sum: up to n/5 (Pyper & Peterman 1998) but at most 14,
 * which covers two weekly cycles (the lag-7 autocorrelation a lag-1 formula misses) while keeping
 * noisy far-lag estimates out.
 */
export function effectiveSizeLags(n: number): number {
  return Math.max(0, Math.min(14, Math.floor(n / 5)));
}

/**
 * Effective number of independent pairs for the correlation of two autocorrelated series
 * (Bartlett 1946; Bayley & Hammersley 1946; multi-lag form of Pyper & Peterman 1998 with their
 * (n − k)/n weight): n_eff = n / (1 + 2 Σ_k (1 − k/n)·ρx(k)·ρy(k)) over k = 1…K, K = the shorter
 * of the two autocorrelation arrays, counting only lags at which *both* autocorrelations lie
 * outside ±1.96/√n — the significance screen Hamed & Rao (1998) apply to the trend test
 * (statistics.md §2). Without it, the sampling noise of two correlated series' autocorrelations
 * multiplies into a positive sum (≈ K·r²/n) and halves n_eff for independent days; with it, real
 * structure (lag-1 persistence, a weekly cycle left in raw values) still counts. Clamped to
 * [2, n]: a negative sum would otherwise create days (statistics.md §1). For the mean of one
 * series use `effectiveSizeOfMean`.
 */
export function effectiveSampleSize(
  n: number,
  acfX: ArrayLike<number>,
  acfY: ArrayLike<number>,
): number {
  if (n < 2) return n;
  const lags = Math.min(acfX.length, acfY.length);
  const bound = Z_975 / Math.sqrt(n);
  let sum = 0;
  for (let k = 1; k <= lags; k++) {
    const rx = acfX[k - 1], ry = acfY[k - 1];
    if (Math.abs(rx) > bound && Math.abs(ry) > bound) sum += (1 - k / n) * rx * ry;
  }
  const tau = 1 + 2 * sum;
  if (!(tau > 0)) return n;
  return Math.max(2, Math.min(n, n / tau));
}

/**
 * Effective number of independent values behind the mean of one autocorrelated series:
 * n / (1 + 2 Σ (1 − k/n)·ρ(k)), clamped to [2, n] (statistics.md §1, Bartlett/Bayley–Hammersley),
 * counting only lags with |ρ(k)| > 1.96/√n (the Hamed–Rao screen, §2): summed unscreened, the
 * sampling noise of 14 lags alone moves the factor by about ±2·√(14/n) — ±0.8 at 90 days.
 */
export function effectiveSizeOfMean(n: number, acf: ArrayLike<number>): number {
  if (n < 2) return n;
  const bound = Z_975 / Math.sqrt(n);
  let sum = 0;
  for (let k = 1; k <= acf.length; k++) {
    if (Math.abs(acf[k - 1]) > bound) sum += (1 - k / n) * acf[k - 1];
  }
  const tau = 1 + 2 * sum;
  if (!(tau > 0)) return n;
  return Math.max(2, Math.min(n, n / tau));
}

/** Effective pairs below which a correlation is withheld (the existing pair minimum, §1). */
export const MIN_EFFECTIVE_PAIRS = 14;

/** Inference for one correlation on an effective sample size. */
export interface CorrelationInference {
  /** Degrees of freedom n_eff − 2 − k (NaN when ≤ 0). */
  df: number;
  /** Two-sided p from t = r·√(df/(1 − r²)). */
  p: number;
  /** Fisher-z 95 % interval tanh(atanh r ± 1.96/√(n_eff − 3 − k)). */
  ciLow: number;
  ciHigh: number;
}

/**
 * p-value and 95 % interval of a (partial) correlation r on `nEff` effective pairs after removing
 * `nuisance` terms (statistics.md §1 "Plugging in"). `nEff` may be fractional. NaN fields when
 * the df or the interval's n_eff − 3 − k is not positive.
 */
export function correlationInference(r: number, nEff: number, nuisance = 0): CorrelationInference {
  const df = nEff - 2 - nuisance;
  if (Number.isNaN(r) || !(df > 0)) return { df: NaN, p: NaN, ciLow: NaN, ciHigh: NaN };
  const p = Math.abs(r) >= 1 ? 0 : studentTTwoSidedP(r * Math.sqrt(df / (1 - r * r)), df);
  const ciN = nEff - 3 - nuisance;
  if (!(ciN > 0)) return { df, p, ciLow: NaN, ciHigh: NaN };
  if (Math.abs(r) >= 1) return { df, p, ciLow: r, ciHigh: r };
  const z = Math.atanh(r), half = Z_975 / Math.sqrt(ciN);
  return { df, p, ciLow: Math.tanh(z - half), ciHigh: Math.tanh(z + half) };
}

/** A correlation after adjustment, with its effective size and inference (NaN = not computed). */
export interface AdjustedCorrelation {
  /** The coefficient. */
  r: number;
  /** Number of pairs. */
  n: number;
  /** Effective number of independent pairs given both residual series' autocorrelation. */
  nEff: number;
  /** The adjustment that ran (may be a short-series fallback of the one requested). */
  applied: AppliedAdjustment;
  /** Nuisance terms the adjustment removed (k in df = n_eff − 2 − k). */
  nuisance: number;
  /** Two-sided p on n_eff − 2 − k df. */
  p: number;
  /** Fisher-z 95 % interval on n_eff − 3 − k. */
  ciLow: number;
  ciHigh: number;
}

/** Options of `adjustedCorrelation`. */
export interface AdjustedCorrelationOptions {
  /** Day number of each x value (ascending); y's day is `days[i] + lag`. */
  days: ArrayLike<number>;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  lag: number;
  request: AdjustRequest;
  method: "spearman" | "pearson";
}

/**
 * Correlation of two daily series already paired (x on `days[i]`, y on `days[i] + lag`) after the
 * adjustment `request` asks for (chosen once from x's days and applied to both sides), with n_eff
 * from the residuals' autocorrelations and p / CI on n_eff − 2 − k df. Spearman applies the same
 * to the ranks of the residuals (an approximation, statistics.md §1). The building block of
 * `get_correlation` and the correlation screen.
 */
export function adjustedCorrelation(o: AdjustedCorrelationOptions): AdjustedCorrelation {
  const n = o.x.length;
  const applied = chooseAdjustment(o.days, o.request);
  const yDays = new Float64Array(n);
  for (let i = 0; i < n; i++) yDays[i] = o.days[i] + o.lag;
  let ex = residualize(o.days, o.x, applied);
  let ey = residualize(yDays, o.y, applied);
  const constant = nothingLeft(o.x, ex) || nothingLeft(o.y, ey);
  if (o.method === "spearman") {
    ex = averageRanks(ex);
    ey = averageRanks(ey);
  }
  const r = constant ? NaN : pearson(ex, ey);
  const lags = effectiveSizeLags(n);
  const screened = effectiveSampleSize(
    n,
    autocorrelations(o.days, ex, lags),
    autocorrelations(o.days, ey, lags),
  );
  // issue #20: the screened multi-lag sum alone rarely triggers at 14–30 days, so the AR(1)
  // model is always applied too, and the smaller of the two counts (the screened sum still
  // catches a weekly cycle an AR(1) misses when weekday means are kept)
  const nEff = n >= AR1_MODEL_BELOW_PAIRS ? screened : Math.min(
    screened,
    ar1EffectivePairs(o.days, ar1Persistence(o.days, ex), ar1Persistence(o.days, ey)),
  );
  const nuisance = nuisanceTerms(o.days, applied);
  const inf = correlationInference(r, nEff, nuisance);
  return { r, n, nEff, applied, nuisance, p: inf.p, ciLow: inf.ciLow, ciHigh: inf.ciHigh };
}

/**
 * Whether adjusting left (numerically) nothing of `raw`: residual sum of squares under 1e-18 of
 * the raw one — a series that was all weekday pattern and trend leaves ~1e-16 rounding noise,
 * not an exact 0, and ranking that noise would invent a correlation.
 */
function nothingLeft(raw: ArrayLike<number>, residual: ArrayLike<number>): boolean {
  const m = mean(raw);
  let ssRaw = 0, ssRes = 0;
  for (let i = 0; i < raw.length; i++) {
    ssRaw += (raw[i] - m) ** 2;
    ssRes += residual[i] ** 2;
  }
  return !(ssRes > 1e-18 * ssRaw);
}

// ---------------------------------------------------------------------------------------------
// Persistence as an AR(1) model (issue #20: calibrated at 14–90 days)

/** Fewest pairs of consecutive days needed to estimate persistence (else no p is stated). */
export const MIN_AR1_PAIRS = 5;
/** Largest persistence used: an estimate near 1 would leave almost no independent days. */
export const MAX_AR1 = 0.95;
/**
 * The persistence a trend test's φ is raised toward (never lowered), with the weight of how many
 * consecutive-day pairs: φ = max(φ̂, (m·φ̂ + 20·0.5)/(m + 20)). At 14–30 days φ̂ rests on 14–35 pairs
 * (SE ≈ 0.2), and the tests it lets through are the ones whose φ̂ came out low by chance — liberal
 * exactly where a p is stated (7 % at 14 days without). 0.5 is the persistence of the daily logs
 * the #20 audit measured; 20 pairs was set by the seeded null simulation
 * (lib/analytics/calibration_test.ts). At 90 days (≈ 110 pairs) it raises φ by ≤ 0.08; a series
 * more persistent than 0.5 keeps its own φ.
 */
export const AR1_PRIOR = 0.5;
/** Weight of `AR1_PRIOR`, in consecutive-day pairs. */
export const AR1_PRIOR_PAIRS = 20;
/**
 * Pairs from which a correlation's n_eff is the screened multi-lag sum alone (the fast path the
 * #20 audit found calibrated from 60 days, ≈ 45 pairs); below, the smaller of that and the AR(1)
 * model's count (`ar1EffectivePairs`).
 */
export const AR1_MODEL_BELOW_PAIRS = 40;

/**
 * Persistence φ of a gapped residual series as an AR(1) model, for the calibrated tests:
 * r1 = [Σ e_i·e_{i+1} / m] / [Σ e_i² / n] over the m pairs of values exactly one day apart
 * (e = value − mean), corrected for its small-sample bias by solving φ = r1 + (2 + 4φ)/n (the
 * Kendall/Marriott–Pope bias of a lag-1 estimate after removing a mean and a trend), clamped
 * to [0, `MAX_AR1`] (negative persistence would create days) and, with `shrink` (the trend
 * test), raised toward `AR1_PRIOR` with the weight of `AR1_PRIOR_PAIRS` pairs. A series with
 * under `MIN_AR1_PAIRS` consecutive-day
 * pairs (logged every few days) uses its successive values up to 7 days apart instead, ρ so
 * corrected, and φ = ρ^(1/mean gap). NaN with under 6 values or under `MIN_AR1_PAIRS` pairs
 * either way.
 */
export function ar1Persistence(
  days: ArrayLike<number>,
  values: ArrayLike<number>,
  shrink = false,
): number {
  const n = values.length;
  if (n < 6) return NaN;
  const daily = lagOneCorrelation(days, values, 1);
  if (daily.pairs >= MIN_AR1_PAIRS) return correctedPersistence(daily, n, shrink, 1);
  // a series logged every few days: successive values up to a week apart, φ = ρ^(1/mean gap)
  const sparse = lagOneCorrelation(days, values, 7);
  if (sparse.pairs < MIN_AR1_PAIRS) return NaN;
  return correctedPersistence(sparse, n, shrink, sparse.meanGap);
}

/** Bias-corrected, clamped φ from a lag-one correlation over pairs `meanGap` days apart. */
function correctedPersistence(
  c: { r1: number; pairs: number },
  n: number,
  shrink: boolean,
  meanGap: number,
): number {
  const corrected = (c.r1 + 2 / n) / (1 - 4 / n);
  const clamped = Math.max(0, Math.min(MAX_AR1, corrected));
  const rho = shrink
    ? Math.max(
      clamped,
      (c.pairs * clamped + AR1_PRIOR_PAIRS * AR1_PRIOR) / (c.pairs + AR1_PRIOR_PAIRS),
    )
    : clamped;
  return Math.min(MAX_AR1, rho ** (1 / meanGap));
}

/**
 * r1 = [Σ e_i·e_{i+1} / m] / [Σ e_i² / n] over the m successive values at most `maxGap` days
 * apart (e = value − mean), with their mean gap.
 */
function lagOneCorrelation(
  days: ArrayLike<number>,
  values: ArrayLike<number>,
  maxGap: number,
): { r1: number; pairs: number; meanGap: number } {
  const n = values.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += values[i];
  m /= n;
  let c0 = 0, c1 = 0, pairs = 0, gaps = 0;
  for (let i = 0; i < n; i++) {
    c0 += (values[i] - m) ** 2;
    const gap = i + 1 < n ? days[i + 1] - days[i] : Infinity;
    if (gap <= maxGap) {
      c1 += (values[i] - m) * (values[i + 1] - m);
      pairs++;
      gaps += gap;
    }
  }
  const r1 = c0 > 0 && pairs > 0 ? (c1 / pairs) / (c0 / n) : 0;
  return { r1, pairs, meanGap: pairs > 0 ? gaps / pairs : 1 };
}

/** Σ_{i,j} w_i·w_j·ρ^|d_i − d_j| for a positive ρ < 1 (terms below 1e-9 dropped). */
function ar1Quadratic(days: ArrayLike<number>, w: ArrayLike<number>, rho: number): number {
  const n = w.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += w[i] * w[i];
  if (!(rho > 0)) return sum;
  const reach = Math.ceil(Math.log(1e-9) / Math.log(Math.min(rho, 0.999999)));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const gap = days[j] - days[i];
      if (gap > reach) break;
      sum += 2 * w[i] * w[j] * rho ** gap;
    }
  }
  return sum;
}

/**
 * Effective number of pairs of two AR(1) series (persistence φx, φy) correlated on the values
 * at `days`: n_eff = n² / Σ_{i,j} (φx·φy)^|d_i − d_j| — Bartlett's variance of r under
 * independence, Var(r) ≈ Σ_{i,j} ρx(d_i − d_j)·ρy(d_i − d_j) / n², with the model's
 * ρ(k) = φ^k, summed over the actual days so gaps count exactly. Clamped to [2, n].
 */
export function ar1EffectivePairs(days: ArrayLike<number>, phiX: number, phiY: number): number {
  const n = days.length;
  const ones = new Float64Array(n).fill(1);
  return Math.max(2, Math.min(n, (n * n) / ar1Quadratic(days, ones, phiX * phiY)));
}

/**
 * Variance inflation of a slope over `days` under AR(1) errors with persistence φ: f =
 * Σ_{i,j} t̃_i·t̃_j·φ^|d_i − d_j| / Σ t̃_i², t̃ = the day number minus its mean — the ratio of
 * the slope's variance to its variance on independent days (≥ 1 for φ ≥ 0).
 */
export function ar1SlopeInflation(days: ArrayLike<number>, phi: number): number {
  const n = days.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += days[i];
  mean /= n;
  const t = new Float64Array(n);
  let stt = 0;
  for (let i = 0; i < n; i++) {
    t[i] = days[i] - mean;
    stt += t[i] * t[i];
  }
  return stt > 0 ? Math.max(1, ar1Quadratic(days, t, phi) / stt) : 1;
}

// ---------------------------------------------------------------------------------------------
// Multiple testing and confidence words (statistics.md §4)

/** c(m) = Σ_{i=1}^{m} 1/i, the Benjamini–Yekutieli penalty for arbitrary dependence. */
export function harmonicNumber(m: number): number {
  let c = 0;
  for (let i = 1; i <= m; i++) c += 1 / i;
  return c;
}

/**
 * Benjamini–Hochberg q-values in the input order: q_(i) = min_{j ≥ i} min(1, m·p_(j)/j), over
 * the finite p-values only (NaN p → NaN q, not counted in m).
 */
export function benjaminiHochbergQ(ps: ArrayLike<number>): Float64Array {
  return adjustedWithPenalty(ps, false);
}

/**
 * Benjamini–Yekutieli q-values in the input order: q_(i) = min_{j ≥ i} min(1, c(m)·m·p_(j)/j),
 * c(m) = Σ 1/i — FDR control under any dependence between the tests (Benjamini & Yekutieli 2001;
 * statsmodels `fdr_by`). NaN p-values give NaN q and do not count in m.
 */
export function benjaminiYekutieli(ps: ArrayLike<number>): Float64Array {
  return adjustedWithPenalty(ps, true);
}

/** BH (or BY when `yekutieli`) over the finite p-values; NaN entries stay NaN and are not counted. */
function adjustedWithPenalty(ps: ArrayLike<number>, yekutieli: boolean): Float64Array {
  const idx: number[] = [];
  for (let i = 0; i < ps.length; i++) if (!Number.isNaN(ps[i])) idx.push(i);
  const finite = idx.map((i) => ps[i]);
  const q = benjaminiHochberg(finite);
  const c = yekutieli ? harmonicNumber(finite.length) : 1;
  const out = new Float64Array(ps.length).fill(NaN);
  idx.forEach((i, k) => out[i] = Math.min(1, q[k] * c));
  return out;
}

/** Confidence word from q (statistics.md §4): high q ≤ 0.01 with n_eff ≥ 30; medium q ≤ 0.05; else low. */
export type QConfidence = "high" | "medium" | "low";

/** Reporting threshold of the tools' screens (Benjamini–Hochberg). */
export const Q_REPORT = 0.10;

/**
 * `high` when q ≤ 0.01 and n_eff ≥ 30, `medium` when q ≤ 0.05, else `low` (a result with
 * q > 0.10 is not a finding at all; callers decide whether to show it). For a single test q = p.
 */
export function confidenceFromQ(q: number, nEff: number): QConfidence {
  if (q <= 0.01 && nEff >= 30) return "high";
  return q <= 0.05 ? "medium" : "low";
}

// ---------------------------------------------------------------------------------------------
// Trend test respecting autocorrelation (statistics.md §2)

/** Mann–Kendall with the Hamed–Rao variance correction. */
export interface MannKendallCorrected extends MannKendall {
  /** n/n* (≥ 1), the variance inflation from significant rank autocorrelation. */
  inflation: number;
  /** Theil–Sen slope per day used to detrend before the autocorrelation was estimated. */
  slope: number;
}

/**
 * Hamed & Rao (1998) modified Mann–Kendall on a gapped daily series: S and Var(S) as plain MK,
 * then Var*(S) = Var(S)·n/n*, n/n* = 1 + 2/(n(n−1)(n−2))·Σ_k (n−k)(n−k−1)(n−k−2)·ρ_k over the
 * ranks of the Sen-detrended values, counting only lags with |ρ_k| > 1.96/√n, k ≤ `maxLag`
 * (default n − 1, the authors' full form; pyMannKendall `hamed_rao_modification_test`). n/n* is
 * floored at 1 (statistics.md §2: pyMannKendall lets it fall below 1). Pass weekday-adjusted
 * values (`removeWeekdayMeans`, not `residualize`, which would remove the very trend under test)
 * so the weekly cycle is not read as a trend.
 */
export function mannKendallHamedRao(
  days: ArrayLike<number>,
  values: ArrayLike<number>,
  maxLag?: number,
): MannKendallCorrected {
  const n = values.length;
  const plain = mannKendall(values);
  const slope = n >= 2 ? theilSenSlope(days, values) : NaN;
  if (!(plain.varS > 0) || n < 3 || Number.isNaN(slope)) {
    return { ...plain, inflation: 1, slope };
  }
  const detrended = new Float64Array(n);
  for (let i = 0; i < n; i++) detrended[i] = values[i] - slope * (days[i] - days[0]);
  const lags = Math.min(maxLag ?? n - 1, n - 1);
  const acf = autocorrelations(days, averageRanks(detrended), lags);
  const bound = Z_975 / Math.sqrt(n);
  let sum = 0;
  for (let k = 1; k <= lags; k++) {
    const rho = acf[k - 1];
    if (Math.abs(rho) > bound) sum += (n - k) * (n - k - 1) * (n - k - 2) * rho;
  }
  const inflation = Math.max(1, 1 + (2 / (n * (n - 1) * (n - 2))) * sum);
  const varS = plain.varS * inflation;
  const z = plain.s === 0 ? 0 : (plain.s - Math.sign(plain.s)) / Math.sqrt(varS);
  return { s: plain.s, varS, z, p: normalTwoSidedP(z), inflation, slope };
}

/** Mann–Kendall with its variance from an AR(1) model of the residual persistence. */
export interface MannKendallAr1 extends MannKendall {
  /** Bias-corrected AR(1) persistence φ of the ranked residuals (see `ar1Persistence`). */
  phi: number;
  /** Slope-variance inflation f under that φ (`ar1SlopeInflation`). */
  inflation: number;
  /** n / f, the independent days the test rests on. */
  nEff: number;
  /** Student-t degrees of freedom n_eff − 2 − k of the p-value. */
  df: number;
}

/**
 * Mann–Kendall trend test calibrated for persistent days (issue #20): S on `values` (pass
 * weekday-adjusted values — `removeWeekdayMeans` — or the values as logged), Var(S) as plain
 * Mann–Kendall times the AR(1) slope inflation f (`ar1SlopeInflation`) at the persistence φ of
 * the ranks of the residuals after `applied` (weekday means and a linear trend: the trend under
 * test must not count as persistence), z = (S − sign S)/√(Var(S)·f), and p two-sided from
 * Student's t on df = n/f − 2 − k (k = the nuisance terms of `applied` besides the trend), not the
 * normal: φ is estimated, and at 14–30 days that uncertainty matters. p is NaN when φ cannot be
 * estimated or df ≤ 0.
 */
export function mannKendallAr1(
  days: ArrayLike<number>,
  values: ArrayLike<number>,
  applied: AppliedAdjustment,
): MannKendallAr1 {
  const n = values.length;
  const plain = mannKendall(values);
  const ranks = averageRanks(residualize(days, values, applied));
  const phi = ar1Persistence(days, ranks, true);
  const inflation = Number.isNaN(phi) ? NaN : ar1SlopeInflation(days, phi);
  const nEff = n / inflation;
  const df = nEff - 1 - nuisanceTerms(days, applied);
  if (!(plain.varS > 0) || !(df > 0)) {
    return { ...plain, z: NaN, p: NaN, phi, inflation, nEff, df: NaN };
  }
  const varS = plain.varS * inflation;
  const z = plain.s === 0 ? 0 : (plain.s - Math.sign(plain.s)) / Math.sqrt(varS);
  return { s: plain.s, varS, z, p: studentTTwoSidedP(z, df), phi, inflation, nEff, df };
}

/**
 * Removes only each weekday's mean (no trend), for tests that look *for* a trend and so must not
 * remove it first. Weekdays are pooled into weekend/working days when one has fewer than
 * `MIN_PER_WEEKDAY` values, as in `chooseAdjustment`.
 */
export function removeWeekdayMeans(
  days: ArrayLike<number>,
  values: ArrayLike<number>,
): Float64Array {
  return residualize(days, values, chooseAdjustment(days, "weekday"));
}

// ---------------------------------------------------------------------------------------------
// Reporting precision (statistics.md §6)

/** Smallest p or q printed as a number; anything below reads "< 0.001". */
export const P_FLOOR = 0.001;

/** A p- or q-value as reported: a rounded number and the text to print. */
export interface ReportedP {
  /** Two significant digits, at most 3 decimals, floored at 0.001 (see `text`); null for NaN. */
  value: number | null;
  /** "< 0.001", or the value as printed (e.g. "0.042"); "n/a" for NaN. */
  text: string;
}

/**
 * Rounds a p- or q-value to what an estimated n_eff supports (statistics.md §6, AMA style): two
 * significant digits, never more than three decimals, and "< 0.001" below 0.001 (value 0.001).
 * Round only on output; compare thresholds on the unrounded value.
 */
export function reportP(p: number): ReportedP {
  if (Number.isNaN(p)) return { value: null, text: "n/a" };
  if (p < P_FLOOR) return { value: P_FLOOR, text: "< 0.001" };
  if (p >= 1) return { value: 1, text: "1" };
  // One rounding step (issue #20): the decimals that keep two significant digits, capped at
  // three, rounded half-up on the digits the number prints as. Rounding to two significant
  // digits first and then to three decimals turned 0.00248 into 0.0025 and then 0.003.
  const decimals = Math.min(3, 1 - Math.floor(Math.log10(p)));
  const fraction = (String(p).split(".")[1] ?? "").padEnd(decimals + 1, "0");
  const kept = Number(fraction.slice(0, decimals)) + (fraction[decimals] >= "5" ? 1 : 0);
  const v = Math.min(1, kept / 10 ** decimals);
  return { value: v, text: String(v) };
}
