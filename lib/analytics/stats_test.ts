import assert from "node:assert/strict";
import {
  averageRanks,
  benjaminiHochberg,
  chiSquareSf,
  correlationP,
  fisherCi95,
  hedgesG,
  incompleteBeta,
  kruskalWallis,
  logGamma,
  mad,
  mannKendall,
  mannWhitney,
  mean,
  median,
  medianInPlace,
  normalCdf,
  normalTwoSidedP,
  pearson,
  quantile,
  sd,
  spearman,
  studentTTwoSidedP,
  theilSenSlope,
  tieTerm,
  upperGammaQ,
} from "./stats.ts";

/** Asserts |actual − expected| ≤ tol. */
function near(actual: number, expected: number, tol = 1e-9) {
  assert.ok(
    Math.abs(actual - expected) <= tol,
    `expected ${expected} ± ${tol}, got ${actual}`,
  );
}

// Reference values below are textbook definitions worked by hand, or independent evaluations
// (SciPy 1.17: scipy.stats / scipy.special) of the same definitions.

Deno.test("mean(), sd() and median() match a small sample worked by hand", () => {
  const xs = [2, 4, 4, 4, 5, 5, 7, 9];
  assert.equal(mean(xs), 5);
  near(sd(xs), Math.sqrt(32 / 7)); // Σ(x − 5)² = 32, divisor n − 1 = 7
  assert.equal(median(xs), 4.5);
  assert.equal(median([3, 1, 2]), 2);
  assert.ok(Number.isNaN(mean([])));
  assert.ok(Number.isNaN(sd([1])));
});

Deno.test("quantile() interpolates linearly (Hyndman–Fan type 7)", () => {
  const xs = [10, 1, 4, 2, 3];
  near(quantile(xs, 0.1), 1.4);
  near(quantile(xs, 0.25), 2);
  near(quantile(xs, 0.5), 3);
  near(quantile(xs, 0.9), 7.6);
  assert.equal(quantile(xs, 0), 1);
  assert.equal(quantile(xs, 1), 10);
});

Deno.test("mad() is the unscaled median absolute deviation", () => {
  // median 2; |deviations| = 1,0,1,2,8,1,0 → median 1
  assert.equal(mad([1, 2, 3, 4, 10, 1, 2]), 1);
  assert.equal(mad([5, 5, 5, 9]), 0);
});

Deno.test("averageRanks() gives tied values the mean of their ranks", () => {
  assert.deepEqual([...averageRanks([10, 20, 20, 30])], [1, 2.5, 2.5, 4]);
  assert.deepEqual([...averageRanks([3, 1, 3, 3, 0])], [4, 2, 4, 4, 1]);
  // groups of 2 and 3: (8 − 2) + (27 − 3)
  assert.equal(tieTerm([1, 1, 2, 3, 3, 3]), 30);
});

Deno.test("pearson() matches the definition", () => {
  near(pearson([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 7, 5]), 0.7917946548886295, 1e-12);
  assert.equal(pearson([1, 2, 3], [2, 4, 6]), 1);
  assert.equal(pearson([1, 2, 3], [3, 2, 1]), -1);
  assert.ok(Number.isNaN(pearson([1, 2, 3], [5, 5, 5])));
});

Deno.test("spearman() matches a tie case worked by hand", () => {
  // x ranks [1, 2.5, 2.5, 4, 5], y ranks [2, 1, 3.5, 3.5, 5], both mean 3:
  // Σdxdy = 2 + 1 − 0.25 + 0.5 + 4 = 7.25, Σdx² = Σdy² = 9.5 → rho = 7.25 / 9.5
  near(spearman([1, 2, 2, 3, 4], [2, 1, 3, 3, 5]), 7.25 / 9.5, 1e-12);
  // monotone but non-linear → exactly 1
  assert.equal(spearman([1, 2, 3, 4], [1, 8, 27, 64]), 1);
});

Deno.test("logGamma() and the regularized incomplete functions match reference values", () => {
  near(logGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-13);
  near(logGamma(10), Math.log(362880), 1e-12);
  near(logGamma(100.5), 361.43554046777757, 1e-10);
  near(incompleteBeta(0.4, 2, 3), 0.5248, 1e-12); // polynomial: 6x² − 8x³ + 3x⁴
  near(incompleteBeta(0.2, 0.5, 0.5), (2 / Math.PI) * Math.asin(Math.sqrt(0.2)), 1e-12);
  near(incompleteBeta(0.9, 10, 0.5), 0.15164090963470994, 1e-10);
  // Q(3, x) = e^{−x}(1 + x + x²/2)
  near(upperGammaQ(3, 2.5), Math.exp(-2.5) * (1 + 2.5 + 3.125), 1e-13);
  near(upperGammaQ(0.5, 4), 0.004677734981047276, 1e-12);
  near(upperGammaQ(10, 3), 0.9988975118698845, 1e-12);
});

Deno.test("studentTTwoSidedP() matches reference p-values", () => {
  near(studentTTwoSidedP(2.0, 10), 0.07338803477074037, 1e-9);
  near(studentTTwoSidedP(1.0, 1), 0.5, 1e-12); // Cauchy: 1 − 2·atan(1)/π
  near(studentTTwoSidedP(-3.5, 25), 0.0017654953143569536, 1e-9);
  near(studentTTwoSidedP(0.5, 3), 0.651447964848151, 1e-9);
  assert.equal(studentTTwoSidedP(0, 8), 1);
  assert.equal(studentTTwoSidedP(Infinity, 8), 0);
});

Deno.test("chiSquareSf() matches the chi-square upper tail", () => {
  near(chiSquareSf(3.84, 1), 0.05004352124870519, 1e-9);
  near(chiSquareSf(5.99, 2), Math.exp(-5.99 / 2), 1e-12); // df 2 is exponential
  near(chiSquareSf(10, 5), 0.07523524614651217, 1e-9);
  near(chiSquareSf(0.5, 3), 0.9188914116546758, 1e-9);
});

Deno.test("normalCdf() is accurate in both tails", () => {
  near(normalCdf(1.96), 0.9750021048517795, 1e-12);
  near(normalCdf(-1), 0.15865525393145707, 1e-12);
  near(normalCdf(0.5), 0.6914624612740131, 1e-12);
  near(normalCdf(0), 0.5, 1e-15);
  // deep tail keeps relative precision
  near(normalCdf(-8) / 6.22096057427174e-16, 1, 1e-9);
  near(normalTwoSidedP(1.959963984540054), 0.05, 1e-12);
});

Deno.test("correlationP() and fisherCi95() match reference values", () => {
  // r = 0.7917946548886295 on 6 pairs: SciPy pearsonr p = 0.06051140336275671
  near(correlationP(0.7917946548886295, 6), 0.06051140336275671, 1e-9);
  // spearman 7.25/9.5 on 5 pairs: t-based p = 0.13333911953180624
  near(correlationP(7.25 / 9.5, 5), 0.13333911953180624, 1e-9);
  const [lo, hi] = fisherCi95(0.5, 30);
  near(lo, 0.17043136511180015, 1e-12);
  near(hi, 0.7289585563883555, 1e-12);
  assert.deepEqual(fisherCi95(1, 20), [1, 1]);
});

Deno.test("theilSenSlope() is the median pairwise slope", () => {
  const y = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9];
  const x = y.map((_, i) => i);
  near(theilSenSlope(x, y), 4 / 9, 1e-12);
  // an outlier does not move it: pairwise slopes of 0,1,2,3,100 at x 0..4
  assert.equal(theilSenSlope([0, 1, 2, 3, 4], [0, 1, 2, 3, 100]), 1);
});

Deno.test("mannKendall() handles ties and the continuity correction", () => {
  const y = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9];
  const mk = mannKendall(y);
  assert.equal(mk.s, 55);
  // 15·14·35 = 7350; ties: two pairs (2·1·9 each) and two triples (3·2·11 each) = 168
  assert.equal(mk.varS, (7350 - 168) / 18);
  near(mk.z, 54 / Math.sqrt(399), 1e-12);
  near(mk.p, 0.006863794985449032, 1e-9);
  assert.equal(mannKendall([1, 2, 3, 4]).s, 6);
  assert.equal(mannKendall([2, 2, 2]).varS, 0);
  assert.ok(Number.isNaN(mannKendall([2, 2, 2]).p));
});

Deno.test("mannWhitney() applies the tie and continuity corrections", () => {
  const mw = mannWhitney([1.1, 2.0, 2.0, 3.5, 4.0, 5.2], [2.0, 3.1, 4.4, 5.0, 6.3, 7.0, 7.0]);
  assert.equal(mw.u, 9);
  near(mw.p, 0.09807508393321022, 1e-9);
  assert.deepEqual(mannWhitney([3, 3], [3, 3, 3]), { u: 3, z: 0, p: 1 });
});

Deno.test("kruskalWallis() computes H with and without ties", () => {
  const kw = kruskalWallis([[2.9, 3.0, 2.5, 2.6, 3.2], [3.8, 2.7, 4.0, 2.4], [
    2.8,
    3.4,
    3.7,
    2.2,
    2.0,
  ]]);
  near(kw.h, 0.7714285714285722, 1e-9);
  assert.equal(kw.df, 2);
  near(kw.p, 0.6799647735788936, 1e-9);
  const tied = kruskalWallis([[1, 2, 2, 3, 3, 3], [2, 3, 4, 4, 5], [5, 5, 6, 6, 6, 7], []]);
  near(tied.h, 12.136527952921403, 1e-9);
  assert.equal(tied.df, 2); // the empty group does not count
  near(tied.p, 0.0023151889463965208, 1e-9);
  assert.ok(Number.isNaN(kruskalWallis([[1, 2, 3]]).p));
});

Deno.test("hedgesG() uses the exact small-sample correction", () => {
  const a = [5.1, 6.0, 5.5, 7.2, 6.4], b = [4.0, 4.5, 5.2, 3.9, 5.0, 4.4];
  const g = hedgesG(a, b);
  near(g, 2.1078915305724983, 1e-9);
  // close to the usual approximation J ≈ 1 − 3/(4ν − 1)
  near(g, 2.108839110226652, 2e-3);
  assert.ok(Number.isNaN(hedgesG([1, 1], [1, 1])));
});

Deno.test("benjaminiHochberg() keeps input order and monotone q-values", () => {
  const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.005, 0.2, 0.5]);
  const expected = [0.03, 0.06, 0.06, 0.03, 0.24, 0.5];
  expected.forEach((e, i) => near(q[i], e, 1e-12));
  assert.deepEqual([...benjaminiHochberg([0.9, 0.95])], [0.95, 0.95]);
});

Deno.test("medianInPlace() equals median() on random samples with ties, odd and even", () => {
  let seed = 17;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let r = 0; r < 500; r++) {
    const n = 1 + Math.floor(next() * 60);
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = Math.round(next() * 10) / 2;
    assert.equal(medianInPlace(a.slice()), median(a), `sample ${Array.from(a)}`);
  }
  assert.ok(Number.isNaN(medianInPlace(new Float64Array(0))));
});
