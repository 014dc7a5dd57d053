/**
 * The coach's statistical honesty on seeded members built like real logs (issue #20 items 1, 5,
 * 6, 8, 10, 11): noise members get no false finding at either depth, a medium yes/no factor is
 * found and told with its adjusted numbers, the confidence words agree with q and n_eff, and every
 * statistical sentence's q and family size replay through the call its evidence names.
 * Tens of members keep the suite fast; COACH_SIM_SCALE=10 runs ten times as many (`deno task sim`
 * measures every #20 target on ≥ 200 members per set).
 */

import assert from "node:assert/strict";
import type { MemberRecord } from "../record/types.ts";
import { realLogMember } from "../analytics/_real_log_members.ts";
import { runTool } from "../tools/run_tool.ts";
import { analyseRecord } from "./analyse.ts";
import type { Draft } from "./draft.ts";
import { valueAt } from "./evidence.ts";
import type { Tier } from "./tier.ts";

const SCALE = Number(Deno.env.get("COACH_SIM_SCALE") ?? 1);
const STATISTICAL = new Set([
  "correlation",
  "factor_effect",
  "trend",
  "weekday_pattern",
  "period_comparison",
]);
const RELATIONSHIP = new Set(["correlation", "factor_effect"]);
const PURE = { phi: 0, missingDays: 0, weekday: false, trend: false };

function statistical(record: MemberRecord, tier: Tier): Draft[] {
  return analyseRecord(record, tier).drafts.filter((d) => STATISTICAL.has(d.type));
}

/**
 * Findings that are false on a noise member: on pure noise every statistical finding; on the
 * realistic set (own weekday rhythms and drifts) every relationship, and a trend or year-over-year
 * change against the column's planted drift.
 */
function falseFindings(seed: number, pure: boolean, tier: Tier): string[] {
  const m = realLogMember({ seed, days: 365, ...(pure ? PURE : {}) });
  return statistical(m.record, tier).filter((d) => {
    if (pure || RELATIONSHIP.has(d.type)) return true;
    if (d.type === "weekday_pattern") return false;
    const k = d.evidence.key_numbers as Record<string, number>;
    const change = d.type === "trend" ? k["delta"] : k["a.mean"] - k["b.mean"];
    return Math.sign(change) !== Math.sign(m.planted.drift[d.metrics[0]]);
  }).map((d) => `seed ${seed}: ${d.text}`);
}

function noiseFindings(tier: Tier, members: number): string[] {
  const found: string[] = [];
  for (let s = 0; s < members; s++) {
    found.push(...falseFindings(50_000 + s, true, tier), ...falseFindings(50_000 + s, false, tier));
  }
  return found;
}

Deno.test("analyseRecord() at free depth gives none of 40 pure and 40 realistic noise members a false finding", () => {
  // the 30-day free coach misled 4 of these (seeds 16, 44, 45, 51: "Confident (q 0.004)" trends
  // and same-day links on 24 days)
  assert.deepEqual(noiseFindings("free", 40 * SCALE), []);
});

Deno.test("analyseRecord() at paid depth gives none of 15 pure and 15 realistic noise members a false finding", () => {
  assert.deepEqual(noiseFindings("paid", 15 * SCALE), []);
});

/** The factor finding on f → y of a seeded member with a planted factor, if any. */
function factorFinding(seed: number): Draft | undefined {
  const m = realLogMember({ seed, days: 365, factor: { g: 0.55, rate: 0.4 } });
  return statistical(m.record, "paid").find((d) =>
    d.type === "factor_effect" && d.metrics.join() === "f,y"
  );
}

Deno.test("analyseRecord() at paid depth finds a medium yes/no factor (g 0.55, 40 % of days, 365 days) in at least 15 of 30 seeded members", () => {
  // decided by |r| ≥ 0.3 it was found in 6 of these 30 (r ≈ 0.27 for g 0.55); here 16
  const found = Array.from({ length: 30 * SCALE }, (_, i) => factorFinding(70_000 + i))
    .filter((d) => d !== undefined);
  assert.ok(found.length >= 15 * SCALE, `found in ${found.length}`);
  for (const d of found) {
    // the adjusted numbers lead; the plain averages follow (issue #20 item 6)
    assert.match(
      d!.text,
      /^From \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d, your sleep quality was [\d.]+ points (higher|lower) (on days with|on days after|\d days after) workout than otherwise, with your (weekday|weekend) rhythm and trend taken out \(effect size g -?[\d.]+, (small|medium|large)\)\. The plain averages were /,
    );
    const k = d!.evidence.key_numbers as Record<string, number>;
    assert.ok(Math.abs(k.effect_size_g) >= 0.3, `g ${k.effect_size_g}`);
    assert.ok(d!.text.includes(`${Math.abs(k.adjusted_difference)} points`), d!.text);
  }
});

/** Every statistical draft of a dozen members with a planted link or factor, at both depths. */
function plantedDrafts(): Draft[] {
  const drafts: Draft[] = [];
  for (let s = 0; s < 6 * SCALE; s++) {
    const link = realLogMember({ seed: 60_000 + s, days: 180, link: { r: 0.5, lag: s % 2 } });
    const factor = realLogMember({ seed: 70_000 + s, days: 365, factor: { g: 0.55, rate: 0.4 } });
    for (const tier of ["free", "paid"] as const) {
      drafts.push(...statistical(link.record, tier), ...statistical(factor.record, tier));
    }
  }
  return drafts;
}

Deno.test("analyseRecord() words: no “tend to” beside “Tentative”, and the word follows q and n_eff", () => {
  // on the code before, paid link members 1 and 7 read "You tend to have … Tentative (q 0.07 …)"
  const drafts = plantedDrafts();
  assert.ok(drafts.some((d) => /Tentative/.test(d.text)), "no tentative finding to check");
  for (const d of drafts) {
    assert.ok(!(/Tentative/.test(d.text) && /tend to/.test(d.text)), d.text);
    const q = Number(d.text.match(/\(q <? ?([\d.]+) after/)?.[1]);
    assert.ok(Number.isFinite(q), d.text);
    const word = d.text.match(/(Confident|Fairly confident|Tentative) \(q/)?.[1];
    const expected = q <= 0.01 ? "Confident" : q <= 0.05 ? "Fairly confident" : "Tentative";
    // every test the coach states has n_eff ≥ 30, so q alone sets the word
    assert.equal(word, expected, d.text);
  }
});

Deno.test("analyseRecord() every statistical sentence's q and family size replay through evidence.family", () => {
  const checked: string[] = [];
  for (let s = 0; s < 4 * SCALE; s++) {
    const record = realLogMember({ seed: 70_000 + s, days: 400, factor: { g: 0.55, rate: 0.4 } })
      .record;
    for (const tier of ["free", "paid"] as const) {
      for (const d of statistical(record, tier)) {
        const family = d.evidence.family;
        assert.ok(family, `no family call: ${d.text}`);
        assert.deepEqual(family.arguments, { screen: tier, screen_end: "2026-03-18" });
        const outcome = runTool(record, family.tool, family.arguments);
        assert.equal(outcome.kind, "result");
        const answer = outcome.kind === "result" ? outcome.structured : null;
        const stated = d.text.match(/over the (\d+) tests the coach ran at (free|paid) depth/);
        const qText = d.text.match(/\(q (< 0\.001|[\d.]+) after one Benjamini/)?.[1];
        assert.ok(stated && qText, d.text);
        assert.equal(stated[2], tier);
        assert.equal(valueAt(answer, "screen.tests_run"), Number(stated[1]), d.text);
        for (const [path, value] of Object.entries(family.key_numbers)) {
          assert.deepEqual(valueAt(answer, path), value, `${path} in: ${d.text}`);
        }
        const qPath = Object.keys(family.key_numbers).find((p) => p.endsWith(".q"))!;
        assert.equal(valueAt(answer, qPath.replace(/\.q$/, ".q_text")), qText, d.text);
        checked.push(d.type);
      }
    }
  }
  assert.ok(
    checked.includes("factor_effect") && checked.includes("weekday_pattern"),
    checked.join(),
  );
});
