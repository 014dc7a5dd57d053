/**
 * `deno task sim`: measures every target of issue #20 on seeded members built like real logs
 * (lib/analytics/_real_log_members.ts) and prints each figure beside its target with PASS or FAIL.
 *
 *   deno task sim                 200 members per set (the size), 2 workers
 *   deno task sim --members 400   more members per set
 *   deno task sim --quick         40 members per set: a smoke run, not a measurement
 *   deno task sim --workers 1     fewer workers on a busy machine
 *
 * The coach runs as its worker calls it (`analyseRecord` at each tier's TIER_LIMITS); the tools
 * run through `runTool`. Seeded and deterministic: the same flags print the same figures (only the
 * coach's run time varies with the machine). What is measured is lib/coach/_simulation.ts; this
 * file spreads it over workers, adds it up and prints the table.
 */

import { parseArgs } from "node:util";
import {
  COACH_SETS,
  coachRunMs,
  type CoachTally,
  NULL_WINDOWS,
  type NullTally,
  type RecomputeTally,
  type ScreenTally,
} from "../lib/coach/_simulation.ts";
import type { Tier } from "../lib/coach/tier.ts";

/** One member to measure. */
export type Job =
  | { kind: "coach"; set: number; tier: Tier; i: number }
  | { kind: "null"; i: number }
  | { kind: "screen"; i: number }
  | { kind: "recompute"; i: number };

/** What a worker measured for one job. */
export type JobResult =
  | { job: Job & { kind: "coach" }; coach: CoachTally }
  | { job: Job & { kind: "null" }; null: Record<string, NullTally> }
  | { job: Job & { kind: "screen" }; screen: ScreenTally }
  | { job: Job & { kind: "recompute" }; recompute: RecomputeTally };

const TIERS: Tier[] = ["free", "paid"];

/** The command line. */
function options() {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      members: { type: "string" },
      quick: { type: "boolean", default: false },
      workers: { type: "string", default: "2" },
    },
  });
  const members = Number(values.members ?? (values.quick ? 40 : 200));
  const workers = Number(values.workers);
  if (!Number.isInteger(members) || members < 1 || !Number.isInteger(workers) || workers < 1) {
    console.error("usage: deno task sim [--members N] [--quick] [--workers W]");
    Deno.exit(2);
  }
  return { members, workers, quick: values.quick };
}

/** Every job of a run: coach members of every set at both tiers, nulls, screens, recomputations. */
function jobsFor(members: number): Job[] {
  const jobs: Job[] = [];
  COACH_SETS.forEach((_, set) => {
    for (const tier of TIERS) {
      for (let i = 0; i < members; i++) jobs.push({ kind: "coach", set, tier, i });
    }
  });
  // the nulls are cheap and their 0.1 % tail needs tests: twice the members
  for (let i = 0; i < 2 * members; i++) jobs.push({ kind: "null", i });
  for (let i = 0; i < members; i++) jobs.push({ kind: "screen", i });
  for (let i = 0; i < Math.min(members, 50); i++) jobs.push({ kind: "recompute", i });
  return jobs;
}

/** Runs `jobs` on `count` workers, a batch at a time to whichever is free. */
async function runAll(jobs: Job[], count: number): Promise<JobResult[]> {
  const results: JobResult[] = [];
  const batches: Job[][] = [];
  for (let k = 0; k < jobs.length; k += 8) batches.push(jobs.slice(k, k + 8));
  let next = 0, done = 0;
  const started = performance.now();
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const worker = new Worker(new URL("./simulate_worker.ts", import.meta.url), {
        type: "module",
      });
      const send = () => {
        if (next >= batches.length) {
          worker.terminate();
          resolve();
        } else worker.postMessage(batches[next++]);
      };
      worker.onmessage = (e: MessageEvent<JobResult[]>) => {
        results.push(...e.data);
        done += e.data.length;
        if (done % 400 < e.data.length) {
          const s = ((performance.now() - started) / 1000).toFixed(0);
          console.error(`  ${done}/${jobs.length} members measured (${s} s)`);
        }
        send();
      };
      worker.onerror = (e) => {
        e.preventDefault();
        worker.terminate();
        reject(new Error(e.message));
      };
      send();
    });
  await Promise.all(Array.from({ length: count }, one));
  return results;
}

/** One line of the table. */
interface Row {
  what: string;
  figure: string;
  target: string;
  /** null: reported, no target. */
  pass: boolean | null;
}

const pct = (k: number, n: number) => n === 0 ? "n/a" : `${(100 * k / n).toFixed(1)} %`;
const share = (k: number, n: number) => `${k}/${n} (${pct(k, n)})`;

function coachOf(results: JobResult[], set: string, tier: Tier): CoachTally[] {
  const index = COACH_SETS.findIndex((s) => s.id === set);
  return results.flatMap((r) =>
    "coach" in r && r.job.set === index && r.job.tier === tier ? [r.coach] : []
  );
}

/** Which kinds of false finding, e.g. "trend 12, correlation 3". */
function falseKinds(tallies: CoachTally[]): string {
  const counts = new Map<string, number>();
  for (const t of tallies) for (const k of t.falseTypes) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k} ${n}`).join(", ") || "none";
}

function noiseRows(results: JobResult[]): Row[] {
  const rows: Row[] = [];
  for (const set of ["pure", "realistic"]) {
    for (const tier of TIERS) {
      const t = coachOf(results, set, tier);
      const k = t.filter((x) => x.falseFindings > 0).length;
      rows.push({
        what: `${set} noise, ${tier}: members with ≥ 1 false finding [${falseKinds(t)}]`,
        figure: share(k, t.length),
        target: "≤ 2 %",
        pass: k <= 0.02 * t.length,
      });
    }
  }
  return rows;
}

function precisionRows(results: JobResult[]): Row[] {
  const planted = COACH_SETS.filter((s) => s.kind !== "noise");
  return TIERS.map((tier) => {
    const t = planted.flatMap((s) => coachOf(results, s.id, tier));
    const all = t.reduce((s, x) => s + x.relationships, 0);
    const good = t.reduce((s, x) => s + x.trueRelationships, 0);
    return {
      what: `relationship findings that are true over the planted sets, ${tier}`,
      figure: share(good, all),
      target: "≥ 90 %",
      // a depth that states no relationship at all meets it (recall is measured on its own)
      pass: good >= 0.9 * all,
    };
  });
}

function recallRows(results: JobResult[]): Row[] {
  const row = (set: string, what: string, min: number | null): Row => {
    const t = coachOf(results, set, "paid");
    const k = t.filter((x) => x.hit).length;
    return {
      what: `paid recall, ${what}`,
      figure: share(k, t.length),
      target: min === null ? "report" : `≥ ${min} %`,
      pass: min === null ? null : k >= (min / 100) * t.length,
    };
  };
  const hits = COACH_SETS.filter((s) => s.kind !== "noise")
    .flatMap((s) => coachOf(results, s.id, "paid")).filter((x) => x.hit);
  const atLag = hits.filter((x) => x.hitAtLag).length;
  return [
    row("link0_120", "r 0.5 lag 0, 120 days (33/100 in the issue)", null),
    row("link0_180", "r 0.5 lag 0, 180 days", 75),
    row("link0_365", "r 0.5 lag 0, 365 days", 98),
    row("link1_120", "r 0.5 lag 1, 120 days", null),
    row("link1_180", "r 0.5 lag 1, 180 days", null),
    row("link1_365", "r 0.5 lag 1, 365 days", null),
    row("factor_365", "factor g 0.55, 365 days", 55),
    {
      what: "paid hits at the planted lag, planted column leading",
      figure: share(atLag, hits.length),
      target: "every hit",
      pass: atLag === hits.length,
    },
  ];
}

function nullRows(results: JobResult[]): Row[] {
  const sum = new Map<string, NullTally>();
  for (const r of results) {
    if (!("null" in r)) continue;
    for (const [key, t] of Object.entries(r.null)) {
      const s = sum.get(key) ?? { stated: 0, withheld: 0, below05: 0, atMost001: 0 };
      s.stated += t.stated, s.withheld += t.withheld;
      s.below05 += t.below05, s.atMost001 += t.atMost001;
      sum.set(key, s);
    }
  }
  const rows: Row[] = [];
  for (const tool of ["get_trend", "get_correlation"]) {
    for (const days of NULL_WINDOWS) {
      const t = sum.get(`${tool} ${days}`)!;
      const note = `${t.stated} stated, ${t.withheld} withheld`;
      rows.push({
        what: `AR(0.5) null, ${tool} ${days} d: p < 0.05 (${note})`,
        figure: share(t.below05, t.stated),
        target: "3.5–6.5 %",
        pass: t.stated === 0 || (t.below05 >= 0.035 * t.stated && t.below05 <= 0.065 * t.stated),
      });
      rows.push({
        what: `AR(0.5) null, ${tool} ${days} d: p ≤ 0.001`,
        figure: share(t.atMost001, t.stated),
        target: "≤ 0.2 %",
        pass: t.atMost001 <= 0.002 * t.stated,
      });
    }
  }
  return rows;
}

function screenRows(results: JobResult[]): Row[] {
  const t = results.flatMap((r) => "screen" in r ? [r.screen] : []);
  const per = t.filter((x) => x.perTargetPairs > 0).length;
  const wholeRefused = t.some((x) => x.wholePairs === null);
  const whole = t.filter((x) => (x.wholePairs ?? 0) > 0).length;
  const pairs = t.reduce((s, x) => s + x.perTargetPairs, 0);
  return [
    {
      what: `pure noise, find_correlations once per metric: members with ≥ 1 pair (${pairs} pairs)`,
      figure: share(per, t.length),
      target: "≤ 10 %",
      pass: per <= 0.1 * t.length,
    },
    {
      what: "pure noise, find_correlations without `metric` (whole record)",
      figure: wholeRefused ? "n/a (refused)" : share(whole, t.length),
      target: "≤ 10 %",
      pass: !wholeRefused && whole <= 0.1 * t.length,
    },
  ];
}

function checkRows(results: JobResult[]): Row[] {
  const t = results.flatMap((r) => "recompute" in r ? [r.recompute] : []);
  const checked = t.reduce((s, x) => s + x.checked, 0);
  const bad = t.flatMap((x) => x.mismatches);
  const coach = results.flatMap((r) => "coach" in r ? [r.coach] : []);
  const sentences = coach.reduce((s, x) => s + x.sentences, 0);
  const replayed = coach.reduce((s, x) => s + x.replayed, 0);
  return [
    {
      what: "stated numbers that disagree with a plain recomputation " +
        "(r, p, q, n_eff, n, g, means, slopes)",
      figure: share(bad.length, checked),
      target: "0",
      pass: bad.length === 0,
    },
    {
      what: "coach statistical sentences whose q and family size a tool call replays",
      figure: share(replayed, sentences),
      target: "100 %",
      pass: replayed === sentences,
    },
  ];
}

function print(rows: Row[]): void {
  const w = Math.max(...rows.map((r) => r.what.length));
  const f = Math.max(...rows.map((r) => r.figure.length));
  for (const r of rows) {
    const verdict = r.pass === null ? "" : r.pass ? "PASS" : "FAIL";
    console.log(`${r.what.padEnd(w)}  ${r.figure.padStart(f)}  ${r.target.padEnd(10)} ${verdict}`);
  }
}

async function main(): Promise<void> {
  const { members, workers, quick } = options();
  const jobs = jobsFor(members);
  console.error(
    `deno task sim: ${members} members per set, ${jobs.length} runs, ${workers} workers`,
  );
  const started = performance.now();
  const results = await runAll(jobs, workers);
  const ms = coachRunMs(quick ? 5 : 11);
  const rows = [
    ...noiseRows(results),
    ...precisionRows(results),
    ...nullRows(results),
    ...screenRows(results),
    ...recallRows(results),
    ...checkRows(results),
    {
      what: "coach pass, 3 years × 12 columns, paid: median ms (analysis + merge)",
      figure: `${ms.median.toFixed(0)} (CPU ${ms.cpu.toFixed(0)})`,
      target: "< 200 ms",
      pass: ms.median < 200,
    },
  ];
  console.log(`issue #20 targets — ${members} seeded members per set${quick ? " (quick)" : ""}`);
  print(rows);
  const mismatches = results.flatMap((r) => "recompute" in r ? r.recompute.mismatches : []);
  for (const m of mismatches.slice(0, 10)) console.log(`  mismatch: ${m}`);
  const failed = rows.filter((r) => r.pass === false).length;
  const s = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`${failed} of ${rows.filter((r) => r.pass !== null).length} targets FAIL (${s} s)`);
}

if (import.meta.main) await main();
