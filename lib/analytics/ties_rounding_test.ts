/**
 * Ties and rounding (issue #20 item 12): ranks treat values equal within a tolerance as ties —
 * removing weekday means leaves equal values a few ulps apart — and `reportP` rounds once. Each
 * figure is recomputed here by an independent implementation (quadratic ranks, a plain
 * Mann–Kendall with its own tie rule, and `Intl.NumberFormat` rounding for p).
 */

import assert from "node:assert/strict";
import { mannKendallHamedRao, removeWeekdayMeans, reportP } from "./adjust.ts";
import { averageRanks, mannKendall, mannWhitney, spearman, tieTerm } from "./stats.ts";

/** Values this close (relative to the sample's largest magnitude) are one value. */
const REL_TOL = 1e-9;

function tolOf(xs: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < xs.length; i++) m = Math.max(m, Math.abs(xs[i]));
  return REL_TOL * m;
}

/** Independent ranks: 1 + values clearly below + half of the other values tied with this one. */
function referenceRanks(xs: number[]): number[] {
  const tol = tolOf(xs);
  return xs.map((x) => {
    const below = xs.filter((y) => y < x - tol).length;
    const tied = xs.filter((y) => Math.abs(y - x) <= tol).length;
    return below + (tied + 1) / 2;
  });
}

function referencePearson(x: number[], y: number[]): number {
  const mx = x.reduce((a, b) => a + b, 0) / x.length;
  const my = y.reduce((a, b) => a + b, 0) / y.length;
  let sxy = 0, sxx = 0, syy = 0;
  x.forEach((_, i) => {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  });
  return sxy / Math.sqrt(sxx * syy);
}

/** Independent Mann–Kendall S and tie-corrected Var(S). */
function referenceMannKendall(y: number[]): { s: number; varS: number } {
  const tol = tolOf(y);
  const n = y.length;
  let s = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = y[j] - y[i];
      s += Math.abs(d) <= tol ? 0 : Math.sign(d);
    }
  }
  const ranks = referenceRanks(y);
  const groups = new Map<number, number>();
  for (const r of ranks) groups.set(r, (groups.get(r) ?? 0) + 1);
  let ties = 0;
  for (const t of groups.values()) ties += t * (t - 1) * (2 * t + 5);
  return { s, varS: (n * (n - 1) * (2 * n + 5) - ties) / 18 };
}

/**
 * 42 days of a 1–5 score from day 20000 (a Thursday), weekday means removed: equal residuals on
 * different weekdays differ by float noise (e.g. 1.9000000000000004 and 1.9).
 */
function weekdayResiduals(): { days: number[]; values: number[]; residuals: number[] } {
  const days: number[] = [], values: number[] = [];
  for (let k = 0; k < 42; k++) {
    days.push(20000 + k);
    values.push(1 + ((k * 7 + (k % 7) * 3 + Math.floor(k / 5)) % 5));
  }
  const residuals = Array.from(removeWeekdayMeans(days, values));
  return { days, values, residuals };
}

Deno.test("averageRanks() ranks values equal within 1e-9 relative as ties", () => {
  const xs = [0.1 + 0.2, 0.3, 0.7, 0.1 * 3, 1.5];
  assert.deepEqual(Array.from(averageRanks(xs)), [2, 2, 4, 2, 5]);
  assert.deepEqual(Array.from(averageRanks(xs)), referenceRanks(xs));
  // 3 tied values: t³ − t = 24
  assert.equal(tieTerm(xs), 24);
});

Deno.test("spearman() on weekday-adjusted values matches an independent tolerant ranking", () => {
  const { residuals } = weekdayResiduals();
  const exact = residuals.map((r) => Math.round(r * 1e6) / 1e6);
  assert.ok(
    new Set(residuals).size > new Set(exact).size,
    "the fixture must hold float-noise ties",
  );
  const other = residuals.map((_, i) => (i * 37) % 11);
  const expected = referencePearson(referenceRanks(residuals), referenceRanks(other));
  assert.ok(Math.abs(spearman(residuals, other) - expected) < 1e-12);
  // the same as on the cleanly rounded values: the noise is no information
  assert.ok(Math.abs(spearman(residuals, other) - spearman(exact, other)) < 1e-12);
});

Deno.test("mannKendall() counts float-noise differences of weekday-adjusted values as ties", () => {
  const { days, residuals } = weekdayResiduals();
  const ref = referenceMannKendall(residuals);
  const mk = mannKendall(residuals);
  assert.equal(mk.s, ref.s);
  assert.ok(Math.abs(mk.varS - ref.varS) < 1e-9, `varS ${mk.varS} vs ${ref.varS}`);
  const hr = mannKendallHamedRao(days, residuals, 3);
  assert.equal(hr.s, ref.s);
});

Deno.test("mannWhitney() gives the same p whether ties are exact or a few ulps apart", () => {
  const a = [0.1 + 0.2, 0.5, 0.7, 0.1 * 3, 1.1];
  const b = [0.3, 0.3, 0.9, 0.5, 1.3];
  const clean = a.map((x) => Math.round(x * 10) / 10);
  assert.equal(mannWhitney(a, b).p, mannWhitney(clean, b).p);
});

/** Two significant digits, at most three decimals, in one rounding (ECMA-402 exact decimal). */
const ROUND_ONCE = new Intl.NumberFormat("en-US", {
  maximumSignificantDigits: 2,
  maximumFractionDigits: 3,
  roundingPriority: "lessPrecision",
  useGrouping: false,
});

Deno.test("reportP() rounds once: 0.00248 prints as 0.002", () => {
  assert.deepEqual(reportP(0.00248), { value: 0.002, text: "0.002" });
  assert.deepEqual(reportP(0.0449), { value: 0.045, text: "0.045" });
  assert.deepEqual(reportP(0.0245), { value: 0.025, text: "0.025" });
  // a grid and a seeded sweep against the independent rounding
  let seed = 7;
  const ps: number[] = [];
  for (let i = 1000; i <= 100000; i += 7) ps.push(i / 100000);
  for (let i = 0; i < 20000; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    ps.push(0.001 + (seed / 2147483648) * 0.999);
  }
  for (const p of ps) {
    const expected = ROUND_ONCE.format(p);
    assert.equal(reportP(p).text, expected, `p = ${p}`);
    assert.equal(reportP(p).value, Number(expected), `p = ${p}`);
  }
});
