/**
 * The coach's statistical screen: every test it runs in one pass (column pairs × lags, yes/no
 * factors against the columns they may move, trends, and on paid depth weekday patterns and
 * year-over-year comparisons), ONE Benjamini–Yekutieli correction at 0.10 over all of them (issue
 * #20 item 8: the sentence's "over the N tests" is that one family), then minimum n, n_eff and
 * effect-size floors and the lag rule.
 * Why BY and not BH: under pure noise BH's FDR equals its chance of any false finding (≈ 10 % of
 * members at q 0.10); BY holds for the screen's dependent tests (lags of one pair, pairs sharing a
 * column) and keeps it near 3 % (reference/statistics.md §4, §7). The tests themselves are the
 * tools' own analytics, so every surviving number is what the evidence call shows.
 * It lives under lib/analytics, not lib/coach, so `get_coach_insights` can replay it: the q and the
 * family size a sentence states are reproduced by a tool call (issue #20 item 10).
 */

import { type DayNumber, formatDay } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { correlate, type Correlation } from "./correlation.ts";
import { computeTrend, type Trend } from "./trend.ts";
import { type WeekdayPattern, weekdayPattern } from "./weekday.ts";
import { comparePeriodValues, type Comparison } from "./compare.ts";
import { benjaminiYekutieli, reportP } from "./adjust.ts";
import { type FactorEffect, factorEffect } from "./factor_effect.ts";

/** False-discovery level of the coach (BY over every test of the pass). */
export const COACH_Q = 0.10;
/** Smallest |r| the coach puts in a sentence (Cohen's "medium", statistics.md §4). */
export const MIN_COACH_R = 0.3;
/**
 * Smallest |g| of a yes/no factor's effect (weekday- and trend-adjusted), and of a year-over-year
 * comparison (statistics.md §5; issue #20 item 5: a point-biserial |r| ≥ 0.3 hid a medium effect,
 * since a 40 % factor with g 0.55 has r ≈ 0.27).
 */
export const MIN_COACH_G = 0.3;
/** Fewest paired days behind a relationship the coach reports. */
export const MIN_COACH_PAIRS = 21;
/**
 * Fewest effective days (n_eff) behind any significance the coach states: below it the
 * single-test p-values of autocorrelated days are too small in the tail and BY's bar is crossed by
 * chance (issue #20 item 1), and "Confident" needs n_eff ≥ 30 anyway (adjust.ts confidenceFromQ).
 */
export const MIN_COACH_NEFF = 30;
/**
 * Shortest trend window the coach tests: the Mann–Kendall test with the Hamed–Rao correction is
 * liberal on short autocorrelated windows (issue #20 item 2: 13.5 % at 0.05 on 14 days), so the
 * coach compares at least 8 weeks with the 8 before.
 */
export const MIN_COACH_TREND_WINDOW = 56;
/** The adjustment the screen asks `correlate` and `factorEffect` for (and its evidence names). */
export const COACH_DETREND = "weekday_trend" as const;
/**
 * The coefficient the screen uses (and names in its evidence calls): Pearson on the weekday- and
 * trend-adjusted residuals is the partial correlation of statistics.md §3, the engine §7
 * simulates; on these residuals it keeps the power BY's strict bar needs.
 */
export const COACH_METHOD = "pearson" as const;
/** Smallest trend the coach mentions, in SDs of the earlier window (a change worth saying). */
export const MIN_COACH_TREND_SD = 0.5;
/** Weeks compared year over year (a multiple of 7 keeps weekdays aligned). */
export const YEAR_OVER_YEAR_DAYS = 28;

/** What one depth screens (the coach's tiers add their allowances: lib/coach/tier.ts). */
export interface ScreenDepth {
  /** Days of history the coach reads, ending today (a tool call reproduces at most 366). */
  lookbackDays: number;
  /** Largest lag tested between two columns (0 = same day only). */
  maxLag: number;
  /** Period comparisons (year over year) and weekday patterns. */
  periodsAndWeekdays: boolean;
}

/**
 * The two depths. Free reads 180 days and tests same-day links and trends only (about 55 tests
 * for 10 columns); paid reads 365 days and adds lags 1–3, weekday patterns and year-over-year
 * comparisons. The free tier used to read 30 days: 20–25 logged days made a false finding for
 * 2–6 % of noise members and 2 of 3 of its relationship findings false (issue #20 item 1); the
 * tiers differ in depth, never in honesty.
 */
export const SCREEN_DEPTHS: Readonly<Record<"free" | "paid", ScreenDepth>> = {
  free: { lookbackDays: 180, maxLag: 0, periodsAndWeekdays: false },
  paid: { lookbackDays: 365, maxLag: 3, periodsAndWeekdays: true },
};

/** One relationship test: A on day d against B on day d + lag. */
export interface PairTest {
  kind: "correlation";
  a: Column;
  b: Column;
  lag: number;
  range: DayRange;
  c: Correlation;
}

/**
 * One factor test: the outcome on day d + lag on days after a yes/no factor day d against the
 * other days. Its size is `get_factor_effect`'s adjusted Hedges g (`e`); its p is the
 * point-biserial correlation on the same weekday- and trend-adjusted days (`c`, what
 * `get_correlation` returns — a t-test on the adjusted outcome, with the effective-n correction).
 * The rank test `get_factor_effect` reports lost about a third of the medium effects to BY's bar
 * at 365 days (issue #20 item 5).
 */
export interface FactorTest {
  kind: "factor";
  a: Column;
  b: Column;
  lag: number;
  range: DayRange;
  e: FactorEffect;
  c: Correlation;
}

/**
 * One trend test: the last `window` days against the `window` before, exactly as `get_trend`
 * computes it — Mann–Kendall on weekday-adjusted values with the Hamed–Rao autocorrelation
 * correction (statistics.md §2; plain Mann–Kendall on autocorrelated days made a third of the
 * noise findings, §7).
 */
export interface TrendTest {
  kind: "trend";
  column: Column;
  window: number;
  t: Trend;
}

/** One weekday-pattern test over the look-back. */
export interface WeekdayTest {
  kind: "weekday";
  column: Column;
  range: DayRange;
  w: WeekdayPattern;
}

/** The last 4 weeks against the same 4 weeks a year (52 weeks) earlier. */
export interface YearTest {
  kind: "year";
  column: Column;
  a: DayRange;
  b: DayRange;
  cmp: Comparison;
}

/** Any test of the pass. */
export type CoachTest = PairTest | FactorTest | TrendTest | WeekdayTest | YearTest;

/** A test with its p and its BY-adjusted q in the one family. */
export type Passed = CoachTest & { id: string; p: number; q: number };

/** A pair the data could not test yet, for "N more days of X would let the coach test …". */
export interface Unlock {
  a: Column;
  b: Column;
  have: number;
  needed: number;
}

/** What one pass found. */
export interface ScreenResult {
  range: DayRange;
  /** Every test that produced a p-value: the m of the one correction. */
  testsRun: number;
  passed: Passed[];
  unlocks: Unlock[];
}

/**
 * Most columns one run screens: bounds a run's time and memory (tests grow with the square of
 * the columns; 16 columns at paid depth are 504 tests).
 */
export const MAX_SCREEN_COLUMNS = 16;

/**
 * Columns the screen reads: active ones with values, the most logged first when there are more
 * than `MAX_SCREEN_COLUMNS` (ties keep display order), then back in display order.
 */
function screenable(record: MemberRecord): Column[] {
  const size = (c: Column) => record.values.get(c.key)?.size ?? 0;
  const active = record.columns.filter((c) => !c.archived && size(c) > 0);
  if (active.length <= MAX_SCREEN_COLUMNS) return active;
  const kept = new Set([...active].sort((a, b) => size(b) - size(a)).slice(0, MAX_SCREEN_COLUMNS));
  return active.filter((c) => kept.has(c));
}

/** First day with any value of `column` inside `range`, or null. */
function firstLogged(record: MemberRecord, column: Column, range: DayRange): DayNumber | null {
  const values = record.values.get(column.key);
  if (!values) return null;
  for (let d = range.start; d <= range.end; d++) if (values.has(d)) return d;
  return null;
}

/** The stable name of a test, as `get_coach_insights` lists it (column keys hold no ":"). */
export function testId(t: Candidate): string {
  switch (t.kind) {
    case "correlation":
    case "factor":
      return `${t.kind}:${t.a.key}:${t.b.key}:${t.lag}`;
    case "trend":
      return `trend:${t.column.key}:${t.window}`;
    case "weekday":
    case "year":
      return `${t.kind}:${t.column.key}`;
  }
}

/** A factor test before its effect size is computed (only the ones BY keeps need it). */
type FactorCandidate = Omit<FactorTest, "e">;

/** A test of the family before the survivors' factor effects are computed. */
type Candidate = Exclude<CoachTest, FactorTest> | FactorCandidate;

/**
 * One test of A on day d against B on day d + lag: a factor test when A is yes/no and B is not (a
 * yes/no factor is decided by its adjusted effect size, issue #20 item 5), else a correlation.
 * Null when the data cannot carry a stated significance (too few days or effective days).
 */
function pairTest(
  record: MemberRecord,
  { a, b, lag, range }: { a: Column; b: Column; lag: number; range: DayRange },
): PairTest | FactorCandidate | null {
  const c = correlate({ record, a, b, lag, range, method: COACH_METHOD, detrend: COACH_DETREND });
  if (c.withheld || !Number.isFinite(c.p) || c.nEff < MIN_COACH_NEFF) return null;
  const kind = a.type === "boolean" && b.type !== "boolean" ? "factor" : "correlation";
  return { kind, a, b, lag, range, c };
}

/** A candidate with its factor effect, as `get_factor_effect` computes it; null if withheld. */
function completed(record: MemberRecord, t: Candidate): CoachTest | null {
  if (t.kind !== "factor") return t;
  const e = factorEffect({
    record,
    factor: t.a,
    outcome: t.b,
    lag: t.lag,
    range: t.range,
    threshold: null,
    detrend: COACH_DETREND,
  });
  return e.withheld || !Number.isFinite(e.g) ? null : { ...t, e };
}

/** Days on which both columns hold a value, A on day d and B on day d (for the unlock hint). */
function pairedDays(record: MemberRecord, a: Column, b: Column, range: DayRange): number {
  const sa = record.values.get(a.key), sb = record.values.get(b.key);
  if (!sa || !sb) return 0;
  let n = 0;
  for (let d = range.start; d <= range.end; d++) {
    const x = sa.get(d), y = sb.get(d);
    if (x !== undefined && x !== "skip" && y !== undefined && y !== "skip") n++;
  }
  return n;
}

function pairTests(
  record: MemberRecord,
  columns: Column[],
  range: DayRange,
  depth: ScreenDepth,
): { tests: (PairTest | FactorCandidate)[]; unlocks: Unlock[] } {
  const tests: (PairTest | FactorCandidate)[] = [];
  const unlocks: Unlock[] = [];
  const run = (a: Column, b: Column, lag: number) => {
    // the yes/no side leads when there is one, so a factor is tested as a factor
    const [x, y] = lag === 0 && b.type === "boolean" && a.type !== "boolean" ? [b, a] : [a, b];
    const t = pairTest(record, { a: x, b: y, lag, range });
    if (t) tests.push(t);
  };
  for (let i = 0; i < columns.length; i++) {
    for (let j = i + 1; j < columns.length; j++) {
      run(columns[i], columns[j], 0);
      // too few days with both to say anything either way: tell the member what would change that
      const n = pairedDays(record, columns[i], columns[j], range);
      if (n > 0 && n < MIN_COACH_PAIRS) {
        unlocks.push({ a: columns[i], b: columns[j], have: n, needed: MIN_COACH_PAIRS });
      }
      for (let lag = 1; lag <= depth.maxLag; lag++) {
        run(columns[i], columns[j], lag);
        run(columns[j], columns[i], lag);
      }
    }
  }
  return { tests, unlocks };
}

/** Trend window: half the logged span (whole weeks, 56–90 days), so both halves hold data. */
function trendWindow(record: MemberRecord, column: Column, range: DayRange): number | null {
  const first = firstLogged(record, column, range);
  if (first === null) return null;
  const window = Math.min(90, Math.floor((range.end - first + 1) / 14) * 7);
  return window >= MIN_COACH_TREND_WINDOW ? window : null;
}

function seriesTests(
  record: MemberRecord,
  columns: Column[],
  range: DayRange,
  depth: ScreenDepth,
): Candidate[] {
  const tests: Candidate[] = [];
  for (const column of columns) {
    if (column.type === "boolean") continue;
    const window = trendWindow(record, column, range);
    if (window !== null) {
      const t = computeTrend({
        record,
        column,
        current: { start: range.end - window + 1, end: range.end },
      });
      if (Number.isFinite(t.p)) tests.push({ kind: "trend", column, window, t });
    }
    if (!depth.periodsAndWeekdays) continue;
    const w = weekdayPattern(record, column, range);
    if (!w.withheld && Number.isFinite(w.p)) tests.push({ kind: "weekday", column, range, w });
    const a = { start: range.end - YEAR_OVER_YEAR_DAYS + 1, end: range.end };
    const b = { start: a.start - 364, end: a.end - 364 };
    if (firstLogged(record, column, b) !== null) {
      const cmp = comparePeriodValues({ record, column, a, b });
      if (Number.isFinite(cmp.p)) tests.push({ kind: "year", column, a, b, cmp });
    }
  }
  return tests;
}

/** Whether a test that passed the correction is also large and well-founded enough to say. */
function meetsFloors(test: CoachTest): boolean {
  switch (test.kind) {
    case "correlation":
      return test.c.n >= MIN_COACH_PAIRS && Math.abs(test.c.r) >= MIN_COACH_R;
    case "factor":
      return test.e.withN + test.e.withoutN >= MIN_COACH_PAIRS &&
        Math.abs(test.e.g) >= MIN_COACH_G;
    case "trend":
      return test.t.verdict !== "stable" && test.t.verdict !== "insufficient_data" &&
        Math.abs(test.t.currentMean - test.t.previousMean) >=
          MIN_COACH_TREND_SD * test.t.previousSd;
    case "weekday":
      return test.w.strength === "clear";
    case "year":
      return Math.abs(test.cmp.g) >= MIN_COACH_G && test.cmp.verdict !== "no_clear_difference" &&
        test.cmp.verdict !== "insufficient_data";
  }
}

/** Effective days behind a test: the n_eff its p-value allows for. */
export function effectiveDays(t: Candidate): number {
  switch (t.kind) {
    case "correlation":
    case "factor":
      return t.c.nEff;
    case "trend":
      return (t.t.nCurrent + t.t.nPrevious) / Math.max(t.t.inflation, 1);
    case "weekday":
      return t.w.nEff;
    case "year":
      return t.cmp.nEff;
  }
}

/** The test's single-test p-value. */
export function pValueOf(test: Candidate): number {
  switch (test.kind) {
    case "correlation":
    case "factor":
      return test.c.p;
    case "trend":
      return test.t.p;
    case "weekday":
      return test.w.p;
    case "year":
      return test.cmp.p;
  }
}

/**
 * A relationship test's size on one scale, to compare lags of one pair: |r| on the adjusted days
 * (for a factor the point-biserial r, which orders lags as its adjusted g does).
 */
function pairStrength(t: PairTest | FactorCandidate): number {
  return Math.abs(t.c.r);
}

type PairPassed = (PairTest | FactorTest) & { id: string; p: number; q: number };

/**
 * One finding per pair of columns: the strongest surviving lag, and a lag ≥ 1 only when it beats
 * the same pair's same-day strength (a same-day link leaks into neighbouring lags; statistics.md
 * §3 "Project rule"). The converse holds too: a same-day survivor is not stated when a lag of the
 * same pair is stronger. A persistent column stands in for its own yesterday, so a link at lag 1
 * shows at lag 0 as well, weaker; when only lag 0 survives the correction, the timing the sentence
 * would state is the wrong one (issue #20: lags found at the planted lag in every hit).
 */
function bestPerPair(passed: PairPassed[], all: (PairTest | FactorCandidate)[]): PairPassed[] {
  const sameDay = new Map<string, number>(), lagged = new Map<string, number>();
  const pairKey = (t: PairTest | FactorCandidate) => [t.a.key, t.b.key].sort().join("|");
  for (const t of all) {
    const key = pairKey(t), strength = pairStrength(t);
    if (t.lag === 0) sameDay.set(key, strength);
    else lagged.set(key, Math.max(lagged.get(key) ?? 0, strength));
  }
  const best = new Map<string, PairPassed>();
  for (const t of passed) {
    if (t.lag > 0 && pairStrength(t) <= (sameDay.get(pairKey(t)) ?? 0)) continue;
    if (t.lag === 0 && pairStrength(t) < (lagged.get(pairKey(t)) ?? 0)) continue;
    const current = best.get(pairKey(t));
    if (!current || pairStrength(t) > pairStrength(current)) best.set(pairKey(t), t);
  }
  return [...best.values()];
}

/** The days a depth reads, ending `end` (the member's today when the coach runs). */
export function screenRange(end: DayNumber, depth: ScreenDepth): DayRange {
  return { start: end - depth.lookbackDays + 1, end };
}

/** Runs the whole screen over `range` (normally `screenRange`) at `depth`. */
export function screenRecord(
  record: MemberRecord,
  range: DayRange,
  depth: ScreenDepth,
): ScreenResult {
  const columns = screenable(record);
  const { tests: pairs, unlocks } = pairTests(record, columns, range, depth);
  // below MIN_COACH_NEFF effective days no significance is stated, so such a test is not run
  const series = seriesTests(record, columns, range, depth)
    .filter((t) => effectiveDays(t) >= MIN_COACH_NEFF);
  const family: Candidate[] = [...pairs, ...series];
  // One family, as the member is told: every p-value of the pass in one Benjamini–Yekutieli
  // correction, so the q a sentence quotes is the q over the N tests it names.
  const p = family.map(pValueOf);
  const q = benjaminiYekutieli(p);
  const surviving: Passed[] = [];
  family.forEach((candidate, i) => {
    if (q[i] > COACH_Q) return;
    const t = completed(record, candidate);
    if (t && meetsFloors(t)) surviving.push({ ...t, id: testId(t), p: p[i], q: q[i] });
  });
  const pairHits = surviving.filter((t): t is PairPassed =>
    t.kind === "correlation" || t.kind === "factor"
  );
  const passed: Passed[] = [
    ...bestPerPair(pairHits, pairs),
    ...surviving.filter((t) => t.kind !== "correlation" && t.kind !== "factor"),
  ];
  return { range, testsRun: family.length, passed, unlocks };
}

/** A screen as `get_coach_insights` returns it when asked to replay one (`screen`). */
export interface ScreenReplay {
  depth: "free" | "paid";
  start: string;
  end: string;
  /** The m of the one Benjamini–Yekutieli correction. */
  tests_run: number;
  /** Every test that survived the correction and the floors, by `testId`, with its q as stated. */
  passed: Record<string, { p: number | null; q: number | null; q_text: string }>;
}

/** The replay of `screen` at `depth`: the numbers a statistical sentence quotes. */
export function screenReplay(screen: ScreenResult, depth: "free" | "paid"): ScreenReplay {
  const passed: ScreenReplay["passed"] = {};
  for (const t of screen.passed) {
    const q = reportP(t.q);
    passed[t.id] = { p: reportP(t.p).value, q: q.value, q_text: q.text };
  }
  return {
    depth,
    start: formatDay(screen.range.start),
    end: formatDay(screen.range.end),
    tests_run: screen.testsRun,
    passed,
  };
}
