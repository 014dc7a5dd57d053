/**
 * The measurements of issue #20 on seeded members built like real logs
 * (lib/analytics/_real_log_members.ts), shared by `deno task sim` (scripts/simulate.ts, ≥ 200
 * members per set) and lib/coach/simulation_test.ts (a smaller size in the test suite). Each
 * function measures one member and returns plain numbers, so the script can spread members over
 * workers and add the tallies up in any order with the same result. Not used at run time.
 *
 * Everything runs through the service's own paths: the coach as its worker calls it
 * (`analyseRecord` at a tier's `TIER_LIMITS`) and the tools through `runTool`, exactly as MCP and
 * the web API call them.
 */

import {
  type RealLogMember,
  realLogMember,
  type RealLogOptions,
} from "../analytics/_real_log_members.ts";
import type { MemberRecord } from "../record/types.ts";
import {
  agrees,
  pDigits,
  plainCorrelation,
  plainFactorEffect,
  plainFalseDiscoveryQ,
  plainTrend,
} from "../analytics/_plain_recompute.ts";
import process from "node:process";
import { runTool } from "../tools/run_tool.ts";
import { analyseRecord, emptyFindings, mergeFindings } from "./analyse.ts";
import type { Draft } from "./draft.ts";
import { valueAt } from "./evidence.ts";
import type { Tier } from "./tier.ts";

/** One set of simulated members. */
export interface SimSet {
  id: string;
  /** What the table calls it. */
  label: string;
  kind: "noise" | "link" | "factor";
  days: number;
  options: Omit<RealLogOptions, "seed" | "days">;
}

/** White, complete, no rhythm, no drift: the member every test's null is built for. */
export const PURE_NOISE: Omit<RealLogOptions, "seed" | "days"> = {
  phi: 0,
  missingDays: 0,
  missingValues: 0,
  weekday: false,
  trend: false,
};

const link = (lag: number, days: number): SimSet => ({
  id: `link${lag}_${days}`,
  label: `r 0.5 lag ${lag}, ${days} d`,
  kind: "link",
  days,
  options: { link: { r: 0.5, lag } },
});

/** The coach's sets (issue #20 "Targets"). */
export const COACH_SETS: readonly SimSet[] = [
  { id: "pure", label: "pure noise, 365 d", kind: "noise", days: 365, options: PURE_NOISE },
  { id: "realistic", label: "realistic noise, 365 d", kind: "noise", days: 365, options: {} },
  link(0, 120),
  link(0, 180),
  link(0, 365),
  link(1, 120),
  link(1, 180),
  link(1, 365),
  {
    id: "factor_365",
    label: "factor g 0.55, 365 d",
    kind: "factor",
    days: 365,
    options: { factor: { g: 0.55, rate: 0.4 } },
  },
];

/** The seed of member `i` of a set: distinct across sets, the same on every run. */
export function seedOf(setId: string, i: number): number {
  let h = 2166136261;
  for (const ch of setId) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return (h % 100_000) * 10_000 + i;
}

/** Member `i` of `set`. */
export function memberOf(set: SimSet, i: number): RealLogMember {
  return realLogMember({ seed: seedOf(set.id, i), days: set.days, ...set.options });
}

/** Finding types that state a statistical claim (the rest are counts, streaks and records). */
export const STATISTICAL_TYPES: ReadonlySet<string> = new Set([
  "correlation",
  "factor_effect",
  "trend",
  "weekday_pattern",
  "period_comparison",
]);

const RELATIONSHIP_TYPES = new Set(["correlation", "factor_effect"]);

/** What the coach told one member at one tier, judged against what was planted. */
export interface CoachTally {
  /** Statistical findings that are false (see `isFalse`). */
  falseFindings: number;
  /** Their types, for the breakdown. */
  falseTypes: string[];
  relationships: number;
  trueRelationships: number;
  /** A relationship finding on the planted pair. */
  hit: boolean;
  /** The hit is at the planted lag with the planted column leading. */
  hitAtLag: boolean;
  /** Statistical sentences, and those whose stated q and family size a tool call replays. */
  sentences: number;
  replayed: number;
  /** Findings stored by the run (`mergeFindings` on an empty state, the weekly cap applied). */
  stored: number;
}

/** The planted pair of a set, leading column first. */
function plantedPair(set: SimSet): [string, string] | null {
  return set.kind === "link" ? ["x", "y"] : set.kind === "factor" ? ["f", "y"] : null;
}

/** The lag a draft names (`lag=1`), 0 when none. */
function lagOf(d: Draft): number {
  const m = /lag=(-?\d+)/.exec(d.detail);
  return m ? Number(m[1]) : 0;
}

/** The evidence call of a draft run again on the record. */
function replay(record: MemberRecord, d: Draft): Record<string, unknown> | null {
  const out = runTool(record, d.evidence.tool, d.evidence.arguments);
  return out.kind === "result" ? out.structured : null;
}

/**
 * Whether a statistical finding is false: a relationship other than the planted one; a trend or
 * period comparison moving against the column's planted drift, or any where none was planted;
 * a weekday pattern where no weekday profile was planted.
 */
function isFalse(sim: RealLogMember, set: SimSet, record: MemberRecord, d: Draft): boolean {
  if (RELATIONSHIP_TYPES.has(d.type)) {
    const pair = plantedPair(set);
    return !pair || new Set(d.metrics).size !== 2 || !pair.every((k) => d.metrics.includes(k));
  }
  if (d.type === "weekday_pattern") return set.options.weekday === false;
  const drift = sim.planted.drift[d.metrics[0]] ?? 0;
  if (drift === 0) return true;
  const delta = replay(record, d)?.delta;
  return typeof delta !== "number" || Math.sign(delta) !== Math.sign(drift);
}

/** A call a finding cites: its numbers' call, or the call that replays its q and family. */
type Call = {
  tool: string;
  arguments: Record<string, unknown>;
  key_numbers: Record<string, unknown>;
};

/** Every leaf of a result with its dotted path. */
function leaves(node: unknown, path = ""): [string, unknown][] {
  if (node === null || typeof node !== "object") return [[path, node]];
  return Object.entries(node).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
}

/**
 * Whether a sentence's stated q and family size ("q 0.003 … over the 212 tests") come back from
 * the call that cites them (issue #20: every statistical sentence's q and family size replay
 * through a tool call): the finding's `evidence.family` call when it has one, else its evidence
 * call. The call's recorded key numbers must replay unchanged, and among them (or, when it records
 * none, anywhere in its answer) a q must read as the sentence's and a test count equal it.
 */
export function sentenceReplays(record: MemberRecord, d: Draft): boolean {
  const q = /\bq(?:-value)? ?[=:]? ?(< ?0\.001|\d[\d.]*\d|\d)/.exec(d.text)?.[1];
  const m = /(\d[\d,]*) tests\b/.exec(d.text)?.[1];
  if (!q || !m) return false;
  const call: Call = (d.evidence as { family?: Call }).family ?? d.evidence;
  const out = runTool(record, call.tool, call.arguments);
  if (out.kind !== "result") return false;
  const recorded = Object.entries(call.key_numbers);
  if (recorded.some(([path, v]) => valueAt(out.structured, path) !== v)) return false;
  const where = recorded.length > 0 ? recorded : leaves(out.structured);
  const leaf = (path: string) => path.split(".").at(-1)!;
  const qReads = (v: unknown) =>
    typeof v === "number"
      ? (q.startsWith("<") ? v <= 0.001 : String(v) === q)
      : String(v).replaceAll(" ", "") === q.replaceAll(" ", "");
  const qFound = where.some(([p, v]) => /^(q|q_value|q_text)$|_q$/.test(leaf(p)) && qReads(v));
  const n = Number(m.replaceAll(",", ""));
  const mFound = where.some(([p, v]) => /tests|family/.test(leaf(p)) && v === n);
  return qFound && mFound;
}

/** Runs the coach on member `i` of `set` at `tier` and judges what it says. */
export function coachTally(set: SimSet, i: number, tier: Tier): CoachTally {
  const sim = memberOf(set, i);
  const record = sim.record;
  const analysis = analyseRecord(record, tier);
  const stat = analysis.drafts.filter((d) => STATISTICAL_TYPES.has(d.type));
  const falses = stat.filter((d) => isFalse(sim, set, record, d));
  const rel = stat.filter((d) => RELATIONSHIP_TYPES.has(d.type));
  const pair = plantedPair(set);
  const hits = rel.filter((d) => !falses.includes(d));
  const lag = set.options.link?.lag ?? 0;
  const stored = mergeFindings(emptyFindings(), analysis, { tier, record }).length;
  return {
    falseFindings: falses.length,
    falseTypes: falses.map((d) => d.type),
    relationships: rel.length,
    trueRelationships: hits.length,
    hit: pair !== null && hits.length > 0,
    hitAtLag: hits.length > 0 && hits.every((d) => lagOf(d) === lag && d.metrics[0] === pair![0]),
    sentences: stat.length,
    replayed: stat.filter((d) => sentenceReplays(record, d)).length,
    stored,
  };
}

/** Windows of the calibration check (every window the service uses, issue #20 item 2). */
export const NULL_WINDOWS = [14, 28, 60, 90] as const;

/** Rejections of one tool at one window over a member's tests. */
export interface NullTally {
  /** Answers that stated a p-value. */
  stated: number;
  /** Answers that withheld it (below the tool's minimum). */
  withheld: number;
  below05: number;
  atMost001: number;
}

/** An AR(0.5) null member: real-log defaults without drift (a drift is a true trend). */
export function nullMember(i: number): RealLogMember {
  return realLogMember({ seed: seedOf("ar_null", i), days: 180, trend: false });
}

function addP(t: NullTally, p: unknown): void {
  if (typeof p !== "number") {
    t.withheld++;
    return;
  }
  t.stated++;
  if (p < 0.05) t.below05++;
  if (p <= 0.001) t.atMost001++;
}

/** An empty null tally. */
export function emptyNull(): NullTally {
  return { stated: 0, withheld: 0, below05: 0, atMost001: 0 };
}

/**
 * `get_trend` on every numeric column and `get_correlation` on disjoint column pairs of null
 * member `i`, at each window, with the tools' defaults otherwise.
 */
export function nullTally(i: number): Record<string, NullTally> {
  const { record } = nullMember(i);
  const out: Record<string, NullTally> = {};
  const numeric = record.columns.filter((c) => c.type !== "boolean");
  for (const days of NULL_WINDOWS) {
    const trend = out[`get_trend ${days}`] = emptyNull();
    for (const c of numeric) {
      const r = runTool(record, "get_trend", { metric: c.key, days });
      addP(trend, r.kind === "result" ? r.structured.p_value : null);
    }
    const corr = out[`get_correlation ${days}`] = emptyNull();
    for (let k = 0; k + 1 < record.columns.length; k += 2) {
      const args = { metric_a: record.columns[k].key, metric_b: record.columns[k + 1].key, days };
      const r = runTool(record, "get_correlation", args);
      addP(corr, r.kind === "result" ? r.structured.p_value : null);
    }
  }
  return out;
}

/** What screening every metric of a pure-noise member reported. */
export interface ScreenTally {
  /** Calls once per target (defaults) that reported at least one pair. */
  perTargetPairs: number;
  /** Whole-record call: pairs reported, or null when the tool refuses a call without `metric`. */
  wholePairs: number | null;
}

/** Results of a `find_correlations` answer (0 when it failed). */
function pairsIn(out: ReturnType<typeof runTool>): number {
  if (out.kind !== "result") return 0;
  const results = out.structured.results;
  return Array.isArray(results) ? results.length : 0;
}

/** `find_correlations` once per metric of pure-noise member `i`, then once without a target. */
export function screenTally(i: number): ScreenTally {
  const { record } = memberOf(COACH_SETS[0], i);
  let perTargetPairs = 0;
  for (const c of record.columns) {
    perTargetPairs += pairsIn(runTool(record, "find_correlations", { metric: c.key }));
  }
  const whole = runTool(record, "find_correlations", {});
  return { perTargetPairs, wholePairs: whole.kind === "result" ? pairsIn(whole) : null };
}

/**
 * Median milliseconds of the coach's pass (analysis and merge) at paid depth on 3 years × 12
 * columns: wall time, and the process's CPU time (user + system) over the same runs — on a busy
 * shared machine the wall time also counts the time other processes held the cores.
 */
export function coachRunMs(runs: number): { median: number; cpu: number } {
  const { record } = realLogMember({ seed: seedOf("timing", 0), days: 3 * 365, columns: 12 });
  const once = () => {
    const t0 = performance.now(), c0 = process.cpuUsage();
    mergeFindings(emptyFindings(), analyseRecord(record, "paid"), { tier: "paid", record });
    const c = process.cpuUsage(c0);
    return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
  };
  once(); // warm-up: compile the hot paths
  const times = Array.from({ length: runs }, once);
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { median: median(times.map((t) => t.wall)), cpu: median(times.map((t) => t.cpu)) };
}

/** Stated numbers checked against the plain recomputation, and the ones that disagree. */
export interface RecomputeTally {
  checked: number;
  /** "tool field: stated vs recomputed" for each disagreement. */
  mismatches: string[];
}

type Check = [field: string, stated: unknown, want: number, digits: Parameters<typeof agrees>[2]];

function runChecks(
  tool: string,
  args: Record<string, unknown>,
  checks: Check[],
  t: RecomputeTally,
) {
  for (const [field, stated, want, digits] of checks) {
    t.checked++;
    const s = typeof stated === "number" ? stated : null;
    if (!agrees(s, want, digits)) {
      t.mismatches.push(`${tool} ${JSON.stringify(args)} ${field}: ${s} vs ${want}`);
    }
  }
}

function call(record: MemberRecord, tool: string, args: Record<string, unknown>) {
  const out = runTool(record, tool, args);
  if (out.kind !== "result") throw new Error(`${tool}: ${out.error.message}`);
  // deno-lint-ignore no-explicit-any
  return out.structured as Record<string, any>;
}

function checkCorrelation(
  record: MemberRecord,
  o: { a: string; b: string; lag: number; days: number },
  t: RecomputeTally,
) {
  const args = { metric_a: o.a, metric_b: o.b, lag_days: o.lag, days: o.days };
  const got = call(record, "get_correlation", args);
  const want = plainCorrelation(record, o);
  const checks: Check[] = [["n_pairs", got.n_pairs, want.n, { dp: 0 }]];
  // r, n_eff and p only where the tool states them (below its minimum it withholds them)
  if (got.p_value !== null) {
    checks.push(["r", got.r, want.r, { dp: 2 }], ["n_eff", got.n_eff, want.nEff, { dp: 1 }]);
    checks.push(["p_value", got.p_value, want.p, pDigits(want.p)]);
  }
  runChecks("get_correlation", args, checks, t);
}

function checkFactor(record: MemberRecord, t: RecomputeTally) {
  const o = { factor: "f", outcome: "y", lag: 0, days: 180 };
  const args = { factor: o.factor, outcome: o.outcome, lag_days: o.lag, days: o.days };
  const got = call(record, "get_factor_effect", args);
  const want = plainFactorEffect(record, o);
  const checks: Check[] = [
    ["with.n", got.with.n, want.withN, { dp: 0 }],
    ["without.n", got.without.n, want.withoutN, { dp: 0 }],
  ];
  if (got.p_value !== null) {
    checks.push(["effect_size_g", got.effect_size_g, want.g, { dp: 2 }]);
    checks.push(["n_eff", got.n_eff, want.nEff, { dp: 1 }]);
    checks.push(["p_value", got.p_value, want.p, pDigits(want.p)]);
  }
  runChecks("get_factor_effect", args, checks, t);
}

function checkTrend(record: MemberRecord, o: { metric: string; days: number }, t: RecomputeTally) {
  const got = call(record, "get_trend", o);
  const want = plainTrend(record, o);
  const checks: Check[] = [
    ["n_current", got.n_current, want.nCurrent, { dp: 0 }],
    ["n_previous", got.n_previous, want.nPrevious, { dp: 0 }],
    ["current_mean", got.current_mean, want.currentMean, { dp: 2 }],
    ["previous_mean", got.previous_mean, want.previousMean, { dp: 2 }],
  ];
  if (got.slope_per_week !== null) {
    checks.push(["slope_per_week", got.slope_per_week, want.slopePerWeek, { sig: 3 }]);
  }
  // the persistence-corrected test wherever the answer states its figures (#20 calibration)
  if (got.n_eff !== null) {
    checks.push(["persistence", got.persistence, want.phi, { dp: 2 }]);
    checks.push(["variance_inflation", got.variance_inflation, want.inflation, { dp: 2 }]);
    checks.push(["n_eff", got.n_eff, want.nEff, { dp: 1 }]);
  }
  if (got.p_value !== null) checks.push(["p_value", got.p_value, want.p, pDigits(want.p)]);
  runChecks("get_trend", o, checks, t);
}

/**
 * `find_correlations` on `target` with its defaults (180 days, lags 0–1): every pair it tested
 * recomputed, the false-discovery procedure its answer names (Benjamini–Hochberg or –Yekutieli)
 * written out over them, and each reported pair's r, n, n_eff, p and q compared, and the number
 * of tests.
 */
function checkScreen(record: MemberRecord, target: string, t: RecomputeTally) {
  // the metric's own family where the tool offers a choice (a whole-record family's q counts
  // every pair of the record; its arithmetic is the same, over more tests)
  const own = { metric: target, family: "metric" };
  const args = runTool(record, "find_correlations", own).kind === "result"
    ? own
    : { metric: target };
  const got = call(record, "find_correlations", args);
  const yekutieli = /yekutieli/.test(JSON.stringify(got.adjustments));
  const withheld = new Set(
    (got.withheld_pairs as { other_metric: string; lag_days: number }[])
      .map((w) => `${w.other_metric}|${w.lag_days}`),
  );
  const tests = record.columns.filter((c) => c.key !== target && !c.archived).flatMap((c) =>
    [0, 1].filter((lag) => !withheld.has(`${c.key}|${lag}`)).map((lag) => ({
      key: `${c.key}|${lag}`,
      c: plainCorrelation(record, { a: c.key, b: target, lag, days: 180 }),
    }))
  );
  const q = plainFalseDiscoveryQ(tests.map((x) => x.c.p), yekutieli);
  const checks: Check[] = [["tests_run", got.tests_run, tests.length, { dp: 0 }]];
  for (const hit of got.results as Record<string, number & string>[]) {
    const k = tests.findIndex((x) => x.key === `${hit.other_metric}|${hit.lag_days}`);
    if (k < 0) {
      t.mismatches.push(
        `find_correlations ${target}: ${hit.other_metric} lag ${hit.lag_days} untested`,
      );
      continue;
    }
    const c = tests[k].c, at = `${hit.other_metric} lag ${hit.lag_days}`;
    checks.push([`${at} r`, hit.r, c.r, { dp: 2 }], [`${at} n_pairs`, hit.n_pairs, c.n, { dp: 0 }]);
    checks.push([`${at} n_eff`, hit.n_eff, c.nEff, { dp: 1 }]);
    checks.push([`${at} p_value`, hit.p_value, c.p, pDigits(c.p)]);
    checks.push([`${at} q_value`, hit.q_value, q[k], pDigits(q[k])]);
  }
  runChecks("find_correlations", args, checks, t);
}

/**
 * Recomputes the stated numbers of a handful of answers on realistic member `i`, factor member
 * `i` and planted-link member `i`: correlations at 28, 90 and 180 days (lag 0 and 1), trends at
 * 28 and 90 days, a factor effect, and a `find_correlations` screen with its q-values.
 */
export function recomputeTally(i: number): RecomputeTally {
  const t: RecomputeTally = { checked: 0, mismatches: [] };
  const { record } = memberOf(COACH_SETS[1], i);
  const [a, b, c, d] = record.columns.map((col) => col.key);
  checkCorrelation(record, { a, b, lag: 0, days: 90 }, t);
  checkCorrelation(record, { a: c, b: d, lag: 0, days: 28 }, t);
  checkCorrelation(record, { a, b: c, lag: 1, days: 180 }, t);
  checkTrend(record, { metric: a, days: 28 }, t);
  checkTrend(record, { metric: b, days: 90 }, t);
  checkFactor(memberOf(COACH_SETS[COACH_SETS.length - 1], i).record, t);
  checkScreen(memberOf(COACH_SETS.find((s) => s.id === "link0_180")!, i).record, "y", t);
  return t;
}
