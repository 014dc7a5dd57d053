/**
 * The adjusted correlation, the trend test (issue #20) and the adjusted factor effect recomputed
 * from the sandbox member's raw values by the project's one plain recomputation
 * (`_plain_recompute.ts`: dense least squares by Gaussian elimination, O(n²) ranks and
 * autocorrelations, the t and normal tails by Simpson integration of the density, written from
 * the documented methods), and the issue #12 audit's figures reproduced: the weekday artefacts of
 * the unadjusted screen vanish once weekday means go.
 */

import assert from "node:assert/strict";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getCorrelation } from "../tools/get_correlation.ts";
import { getTrend } from "../tools/get_trend.ts";
import { correlate } from "./correlation.ts";
import { computeTrend } from "./trend.ts";
import { factorEffect } from "./factor_effect.ts";
import { plainCorrelation, plainFactorEffect, plainTrend } from "./_plain_recompute.ts";

const member = syntheticMember();

for (const [metric, window] of [["sleep_hours", 28], ["weight_kg", 28], ["steps", 90]] as const) {
  Deno.test(`recomputation: get_trend ${metric} over ${window} days matches a plain recomputation`, () => {
    const want = plainTrend(member, { metric, days: window });
    const column = member.columns.find((c) => c.key === metric)!;
    const got = computeTrend({
      record: member,
      column,
      current: { start: member.today - window + 1, end: member.today },
    });
    assert.equal(got.s, want.s);
    assert.ok(Math.abs(got.phi - want.phi) < 1e-9, `φ ${got.phi} vs ${want.phi}`);
    assert.ok(
      Math.abs(got.inflation - want.inflation) < 1e-6,
      `f ${got.inflation} vs ${want.inflation}`,
    );
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
    const want = plainCorrelation(member, { a, b, lag, days });
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

Deno.test("recomputation: get_factor_effect workout → next-day mood matches a plain recomputation", () => {
  // statistics.md §5: outcome residuals (weekday + trend) compared between factor and other
  // days; Hedges g; Mann–Whitney with ties and continuity, z × √(n_eff/n)
  const want = plainFactorEffect(member, { factor: "workout", outcome: "mood", lag: 1, days: 180 });
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
  assert.deepEqual([got.withN, got.withoutN], [want.withN, want.withoutN]);
  assert.ok(Math.abs(got.adjustedDifference - want.diff) < 1e-9, `${got.adjustedDifference}`);
  assert.ok(Math.abs(got.g - want.g) < 1e-9, `g ${got.g} vs ${want.g}`);
  assert.ok(Math.abs(got.nEff - want.nEff) < 1e-6, `n_eff ${got.nEff} vs ${want.nEff}`);
  assert.ok(Math.abs(got.p - want.p) < 1e-7, `p ${got.p} vs ${want.p}`);
});
