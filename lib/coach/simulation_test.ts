/**
 * The targets of issue #20 on seeded members built like real logs (AR(1) φ 0.5, 20 % of days
 * missing, 3 % of single values, 10 columns of the starter kinds, each with its own weekday profile
 * and slow drift; lib/analytics/_real_log_members.ts), at a size the test suite affords: 40–50
 * members per set where `deno task sim` (scripts/simulate.ts) measures ≥ 200. The measurements are
 * the script's own (lib/coach/_simulation.ts): the coach as its worker calls it, the tools through
 * `runTool`. Allowances are the rates applied to the smaller count, rounded down.
 *
 * The old version of this file simulated φ ~ U(0, 0.5), 5 % missing and 8 columns, and asserted a
 * recall (90/100 at 120 days) that real logs do not give (33/100; issue #20 item 4).
 */

import assert from "node:assert/strict";
import {
  COACH_SETS,
  type CoachTally,
  coachTally,
  memberOf,
  NULL_WINDOWS,
  nullTally,
  PURE_NOISE,
  recomputeTally,
  screenTally,
  sentenceReplays,
  type SimSet,
} from "./_simulation.ts";
import type { Draft } from "./draft.ts";
import { runTool } from "../tools/run_tool.ts";
import { type Tier, TIER_LIMITS } from "./tier.ts";
import { screenRange, screenRecord } from "./screen.ts";

/** The sets of the suite: the script's, with noise at 180 days (the paid coach's cost is its span). */
const SETS = {
  pure: { id: "test_pure", label: "pure", kind: "noise", days: 180, options: PURE_NOISE },
  realistic: { id: "test_realistic", label: "realistic", kind: "noise", days: 180, options: {} },
  link180: COACH_SETS.find((s) => s.id === "link0_180")!,
  link365: COACH_SETS.find((s) => s.id === "link0_365")!,
  lag180: COACH_SETS.find((s) => s.id === "link1_180")!,
  factor: COACH_SETS.find((s) => s.id === "factor_365")!,
} satisfies Record<string, SimSet>;

const SIZE: Record<keyof typeof SETS, number> = {
  pure: 50,
  realistic: 50,
  link180: 40,
  link365: 20,
  lag180: 20,
  factor: 20,
};

const cache = new Map<string, CoachTally[]>();

/** The coach's tallies for every member of a set at a tier, computed once per file. */
function tallies(set: keyof typeof SETS, tier: Tier): CoachTally[] {
  const key = `${set}:${tier}`;
  if (!cache.has(key)) {
    cache.set(key, Array.from({ length: SIZE[set] }, (_, i) => coachTally(SETS[set], i, tier)));
  }
  return cache.get(key)!;
}

/** Members of `set` at `tier` with at least one false statistical finding. */
function withFalse(set: keyof typeof SETS, tier: Tier): number {
  return tallies(set, tier).filter((t) => t.falseFindings > 0).length;
}

for (const set of ["pure", "realistic"] as const) {
  for (const tier of ["free", "paid"] as const) {
    const allowed = Math.floor(0.02 * SIZE[set]);
    Deno.test(`simulation: at most ${allowed} of ${SIZE[set]} ${set}-noise members get a false statistical finding at ${tier} depth`, () => {
      const k = withFalse(set, tier);
      const kinds = tallies(set, tier).flatMap((t) => t.falseTypes).join(", ");
      assert.ok(k <= allowed, `${k} of ${SIZE[set]} members had a false finding (${kinds})`);
    });
  }
}

for (const tier of ["free", "paid"] as const) {
  Deno.test(`simulation: at least 90 % of the ${tier} coach's relationship findings on planted members are true`, () => {
    const all = (["link180", "link365", "lag180", "factor"] as const).flatMap((s) =>
      tallies(s, tier)
    );
    const found = all.reduce((s, t) => s + t.relationships, 0);
    const good = all.reduce((s, t) => s + t.trueRelationships, 0);
    // a tier that states no relationship at its depth meets the target; the paid one must state some
    if (tier === "paid") assert.ok(found > 0, "no relationship finding at all");
    assert.ok(good >= 0.9 * found, `${good} of ${found} relationship findings were true`);
  });
}

Deno.test("simulation: the paid coach finds r 0.5 over 180 days in at least 75 % and over 365 days in at least 98 % of members", () => {
  const hits = (s: "link180" | "link365") => tallies(s, "paid").filter((t) => t.hit).length;
  assert.ok(hits("link180") >= 0.75 * SIZE.link180, `180 days: ${hits("link180")}/${SIZE.link180}`);
  assert.ok(hits("link365") >= 0.98 * SIZE.link365, `365 days: ${hits("link365")}/${SIZE.link365}`);
});

Deno.test("simulation: the paid coach finds a factor of adjusted g 0.55 over 365 days in at least 55 % of members", () => {
  const hits = tallies("factor", "paid").filter((t) => t.hit).length;
  assert.ok(hits >= 0.55 * SIZE.factor, `found in ${hits} of ${SIZE.factor} members`);
});

Deno.test("simulation: every paid hit of a planted link or factor is at the planted lag with the planted column leading", () => {
  const hits = (["link180", "link365", "lag180", "factor"] as const)
    .flatMap((s) => tallies(s, "paid")).filter((t) => t.hit);
  assert.ok(hits.length >= 40, `only ${hits.length} hits`);
  const wrong = hits.filter((t) => !t.hitAtLag).length;
  assert.equal(wrong, 0, `${wrong} of ${hits.length} hits at another lag or the wrong way round`);
});

// Pooled over the four windows per tool (about 650–1,900 stated p-values each): at 250–500 tests
// a window, one p ≤ 0.001 is already 0.2–0.4 %. Each window alone is asserted at 2,000 members in
// lib/analytics/calibration_test.ts; `deno task sim` prints every window at 200 members.
Deno.test("screenRecord() states no same-day link when the planted lag-1 link is stronger but only lag 0 survives", () => {
  // found by `deno task sim`: 2 of 905 paid hits were at lag 0 for a planted lag of 1 (this member)
  const { record } = memberOf(COACH_SETS.find((s) => s.id === "link1_120")!, 133);
  const limits = TIER_LIMITS.paid;
  const screen = screenRecord(record, screenRange(record.today, limits), limits);
  const xy = screen.passed.filter((t) =>
    (t.kind === "correlation" || t.kind === "factor") && [t.a.key, t.b.key].sort().join() === "x,y"
  );
  assert.deepEqual(xy.filter((t) => "lag" in t && t.lag !== 1).map((t) => t.id), []);
});

Deno.test("simulation: under AR(0.5) nulls get_trend and get_correlation reject at p < 0.05 in 3.5–6.5 % and at p ≤ 0.001 in ≤ 0.2 % over 14–90 days", () => {
  const per = Array.from({ length: 50 }, (_, i) => nullTally(i));
  const off: string[] = [];
  for (const tool of ["get_trend", "get_correlation"]) {
    const sum = (f: "stated" | "below05" | "atMost001") =>
      NULL_WINDOWS.reduce(
        (s, days) => s + per.reduce((s2, t) => s2 + t[`${tool} ${days}`][f], 0),
        0,
      );
    const n = sum("stated"), r05 = sum("below05") / n, r001 = sum("atMost001") / n;
    assert.ok(n >= 600, `${tool}: only ${n} p-values stated`);
    if (r05 < 0.035 || r05 > 0.065 || r001 > 0.002) {
      off.push(
        `${tool}: ${(100 * r05).toFixed(1)} % < 0.05, ${(100 * r001).toFixed(2)} % ≤ 0.001 of ${n}`,
      );
    }
  }
  assert.deepEqual(off, []);
});

Deno.test("simulation: screening every metric of a pure-noise member finds a pair for at most 10 % of members, per target or in one call", () => {
  const per = Array.from({ length: 30 }, (_, i) => screenTally(i));
  const perTarget = per.filter((t) => t.perTargetPairs > 0).length;
  assert.ok(perTarget <= 3, `per-target calls: ${perTarget} of 30 members got a pair`);
  const refused = per.filter((t) => t.wholePairs === null).length;
  assert.equal(refused, 0, "find_correlations refuses a call without `metric`");
  const whole = per.filter((t) => (t.wholePairs ?? 0) > 0).length;
  assert.ok(whole <= 3, `whole-record call: ${whole} of 30 members got a pair`);
});

Deno.test("simulation: a plain recomputation agrees with every stated r, p, q, n, n_eff, g, mean and slope to the last digit", () => {
  const per = Array.from({ length: 10 }, (_, i) => recomputeTally(i));
  assert.ok(per.reduce((s, t) => s + t.checked, 0) >= 200);
  assert.deepEqual(per.flatMap((t) => t.mismatches), []);
});

Deno.test("simulation: every statistical sentence of the coach states a q and family size its evidence call replays", () => {
  const all = [
    ...tallies("realistic", "paid"),
    ...tallies("link180", "paid"),
    ...tallies("factor", "paid"),
  ];
  const sentences = all.reduce((s, t) => s + t.sentences, 0);
  const replayed = all.reduce((s, t) => s + t.replayed, 0);
  assert.ok(sentences > 0);
  assert.equal(
    replayed,
    sentences,
    `${replayed} of ${sentences} sentences replay their q and family size`,
  );
});

Deno.test("sentenceReplays() accepts a sentence whose q and family size its evidence call returns, and no other", () => {
  // 365 days: the planted pair survives the whole record's family (a per-metric q counts it)
  const { record } = memberOf(SETS.link365, 0);
  const args = { metric: "y" };
  const out = runTool(record, "find_correlations", args);
  assert.equal(out.kind, "result");
  // deno-lint-ignore no-explicit-any
  const got = (out as { structured: Record<string, any> }).structured;
  assert.ok(got.results.length > 0, "the planted pair is found");
  const draft = (text: string): Draft => ({
    type: "correlation",
    priority: 2,
    metrics: ["x", "y"],
    detail: "lag=0",
    period: "2026-03-16",
    text,
    evidence: { tool: "find_correlations", arguments: args, key_numbers: {} },
    weight: 1,
  });
  const q = got.results[0].q_text, m = got.tests_run;
  assert.ok(sentenceReplays(record, draft(`Linked (q ${q} over the ${m} tests).`)));
  assert.ok(!sentenceReplays(record, draft(`Linked (q ${q} over the ${m + 1} tests).`)));
  assert.ok(!sentenceReplays(record, draft(`Linked (q 0.099 over the ${m} tests).`)));
});
