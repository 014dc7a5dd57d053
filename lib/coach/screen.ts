/**
 * The coach's statistical screen: every test it runs in one pass (column pairs × lags, trends,
 * and on paid depth weekday patterns and year-over-year comparisons), one Benjamini–Yekutieli
 * correction at 0.10 over all of them, then minimum n and effect-size floors and the lag rule.
 * Why BY and not BH: under pure noise BH's FDR equals its chance of any false finding (≈ 10 % of
 * members at q 0.10); BY holds for the screen's dependent tests (lags of one pair, pairs sharing a
 * column) and keeps it near 3 % (reference/statistics.md §4, §7). The tests themselves are the
 * tools' own analytics (lib/analytics), so every surviving number is what the evidence call shows.
 */

import type { DayNumber } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "../analytics/common.ts";
import { correlate, type Correlation } from "../analytics/correlation.ts";
import { computeTrend, type Trend } from "../analytics/trend.ts";
import { type WeekdayPattern, weekdayPattern } from "../analytics/weekday.ts";
import { comparePeriodValues, type Comparison } from "../analytics/compare.ts";
import { benjaminiYekutieli } from "../analytics/adjust.ts";
import type { TierLimits } from "./tier.ts";

/** False-discovery level of the coach (BY over every test of the pass). */
export const COACH_Q = 0.10;
/** Smallest |r| the coach puts in a sentence (Cohen's "medium", statistics.md §4). */
export const MIN_COACH_R = 0.3;
/** Fewest paired days behind a relationship the coach reports. */
export const MIN_COACH_PAIRS = 21;
/** Smallest |g| for a year-over-year comparison. */
export const MIN_COACH_G = 0.3;
/** The adjustment the screen asks `correlate` for (and names in its evidence calls). */
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
export type CoachTest = PairTest | TrendTest | WeekdayTest | YearTest;

/** A test that survived the correction and the floors, with its BY-adjusted q. */
export type Passed = CoachTest & { q: number };

/** A pair the data could not test yet, for "N more days of X would let the coach test …". */
export interface Unlock {
  a: Column;
  b: Column;
  have: number;
  needed: number;
}

/** What one pass found. */
export interface ScreenResult {
  /** Every test that produced a p-value (the m of the correction). */
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

function pairTests(
  record: MemberRecord,
  columns: Column[],
  range: DayRange,
  limits: TierLimits,
): { tests: PairTest[]; unlocks: Unlock[] } {
  const tests: PairTest[] = [];
  const unlocks: Unlock[] = [];
  const run = (a: Column, b: Column, lag: number) => {
    const c = correlate({
      record,
      a,
      b,
      lag,
      range,
      method: COACH_METHOD,
      detrend: COACH_DETREND,
    });
    if (!c.withheld) tests.push({ kind: "correlation", a, b, lag, range, c });
    // too few days with both to say anything either way: tell the member what would change that
    if (lag === 0 && c.n > 0 && c.n < MIN_COACH_PAIRS) {
      unlocks.push({ a, b, have: c.n, needed: MIN_COACH_PAIRS });
    }
  };
  for (let i = 0; i < columns.length; i++) {
    for (let j = i + 1; j < columns.length; j++) {
      run(columns[i], columns[j], 0);
      for (let lag = 1; lag <= limits.maxLag; lag++) {
        run(columns[i], columns[j], lag);
        run(columns[j], columns[i], lag);
      }
    }
  }
  return { tests, unlocks };
}

/** Trend window: half the logged span (whole weeks, 14–90 days), so both halves hold data. */
function trendWindow(record: MemberRecord, column: Column, range: DayRange): number | null {
  const first = firstLogged(record, column, range);
  if (first === null) return null;
  const window = Math.min(90, Math.floor((range.end - first + 1) / 14) * 7);
  return window >= 14 ? window : null;
}

function seriesTests(
  record: MemberRecord,
  columns: Column[],
  range: DayRange,
  limits: TierLimits,
): CoachTest[] {
  const tests: CoachTest[] = [];
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
    if (!limits.periodsAndWeekdays) continue;
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

function pValue(test: CoachTest): number {
  switch (test.kind) {
    case "correlation":
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
 * One finding per pair of columns: the strongest surviving lag, and a lag ≥ 1 only when its |r|
 * beats the same pair's same-day |r| (a same-day link leaks into neighbouring lags; statistics.md
 * §3 "Project rule").
 */
function bestPerPair(passed: (PairTest & { q: number })[], all: PairTest[]) {
  const sameDay = new Map<string, number>();
  const pairKey = (t: PairTest) => [t.a.key, t.b.key].sort().join("|");
  for (const t of all) if (t.lag === 0) sameDay.set(pairKey(t), Math.abs(t.c.r));
  const best = new Map<string, PairTest & { q: number }>();
  for (const t of passed) {
    if (t.lag > 0 && Math.abs(t.c.r) <= (sameDay.get(pairKey(t)) ?? 0)) continue;
    const current = best.get(pairKey(t));
    if (!current || Math.abs(t.c.r) > Math.abs(current.c.r)) best.set(pairKey(t), t);
  }
  return [...best.values()];
}

/** One BY pass over `tests`: the ones with q ≤ 0.10 that also meet the floors, with their q. */
function corrected(tests: CoachTest[]): Passed[] {
  const q = benjaminiYekutieli(tests.map(pValue));
  return tests.map((t, i) => ({ ...t, q: q[i] }))
    .filter((t) => t.q <= COACH_Q && meetsFloors(t));
}

/** Runs the whole screen over `range` at the depth `limits`. */
export function screenRecord(
  record: MemberRecord,
  range: DayRange,
  limits: TierLimits,
): ScreenResult {
  const columns = screenable(record);
  const { tests: pairs, unlocks } = pairTests(record, columns, range, limits);
  const series = seriesTests(record, columns, range, limits);
  // Two families, each with its own Benjamini–Yekutieli pass: relationships and trends (the ~200
  // tests of statistics.md §7), and the paid tier's weekday and year-over-year comparisons.
  // Weekday rhythms are nearly always real, and BY's step-up would let those sure discoveries
  // loosen the bar for every correlation in the same family.
  const screenFamily = [...pairs, ...series.filter((t) => t.kind === "trend")];
  const periodFamily = series.filter((t) => t.kind !== "trend");
  const surviving = [
    ...corrected(screenFamily),
    ...corrected(periodFamily),
  ];
  const pairHits = surviving.filter((t): t is PairTest & { q: number } => t.kind === "correlation");
  const passed: Passed[] = [
    ...bestPerPair(pairHits, pairs),
    ...surviving.filter((t) => t.kind !== "correlation"),
  ];
  return { testsRun: screenFamily.length + periodFamily.length, passed, unlocks };
}
