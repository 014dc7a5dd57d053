/**
 * Correlation screens (domain-anchors §3.3 "Correlation screen"; issue #20 "One family per
 * screen"): every pair of a member's active columns at lags 0…max_lag — the whole record — or
 * one metric against every other, each pair adjusted for weekday and trend by default and tested
 * on its effective sample size, Benjamini–Yekutieli over every test of the family
 * (statistics.md §3, §4).
 *
 * Why BY and not BH: an agent that screens every metric one by one runs the whole record's
 * tests, and under pure noise BH's chance of any false pair equals its level (≈ 10 % of members
 * per family at q 0.10; one BH family per metric gave a false pair to a third to a half of noise
 * members). BY controls the false-discovery rate under any dependence between the tests (lags of
 * one pair, pairs sharing a column) and keeps that chance near 2 %; it is also what the coach
 * uses, so a tool replays the coach's q with the same procedure.
 */

import type { Column, MemberRecord } from "../record/types.ts";
import { benjaminiYekutieli, Q_REPORT } from "./adjust.ts";
import type { DayRange } from "./common.ts";
import { correlate, type Correlation, type Detrend, type WithheldReason } from "./correlation.ts";

/** False-discovery threshold for reporting a pair. */
export const Q_THRESHOLD = Q_REPORT;

/** One tested pair: `a` on day d against `b` on day d + lag. */
export interface ScreenHit {
  a: Column;
  b: Column;
  lag: number;
  correlation: Correlation;
  /** Benjamini–Yekutieli q within the screen's family. */
  q: number;
}

/** One pair that could not be tested. */
export interface ScreenWithheld {
  a: Column;
  b: Column;
  lag: number;
  withheld: WithheldReason;
}

/** The outcome of a screen. */
export interface Screen {
  /** Tests that produced a p-value: the m of the correction (the family size). */
  testsRun: number;
  /** Every pair that was tested (in visiting order), with its q. */
  tested: ScreenHit[];
  /** Pairs with q < 0.10, strongest |r| first (all of them; the tool cuts to `top`). */
  discoveries: ScreenHit[];
  withheld: ScreenWithheld[];
}

/** What a screen reads. */
export interface ScreenOptions {
  record: MemberRecord;
  range: DayRange;
  /** Lags 0 … maxLag. */
  maxLag: number;
  /** What each pair has removed first; the tools default to `weekday_trend`. */
  detrend: Detrend;
}

/** One pair to test: `a` leads `b` by `lag` days. */
interface Candidate {
  a: Column;
  b: Column;
  lag: number;
}

/**
 * Most columns a whole-record screen reads — the coach's bound (lib/coach/screen.ts
 * `MAX_SCREEN_COLUMNS`): tests grow with the square of the columns, and 64 columns at max_lag 3
 * were 14,112 tests and ~6 s of one core; 16 columns are at most 840 tests.
 */
export const MAX_RECORD_SCREEN_COLUMNS = 16;

/**
 * The columns a screen reads, in display order: every column not archived; with more than
 * `MAX_RECORD_SCREEN_COLUMNS`, the most logged in `range` (ties keep display order), with
 * `keep` (a target) always among them.
 */
export function screenColumns(record: MemberRecord, range: DayRange, keep?: Column): Column[] {
  const active = record.columns.filter((c) => !c.archived);
  if (active.length <= MAX_RECORD_SCREEN_COLUMNS) return active;
  const logged = (c: Column) => {
    const values = record.values.get(c.key);
    let n = 0;
    if (values) { for (const d of values.keys()) if (d >= range.start && d <= range.end) n++; }
    return c.key === keep?.key ? Infinity : n;
  };
  const size = new Map(active.map((c) => [c.key, logged(c)]));
  const kept = new Set(
    [...active].sort((a, b) => size.get(b.key)! - size.get(a.key)!)
      .slice(0, MAX_RECORD_SCREEN_COLUMNS),
  );
  return active.filter((c) => kept.has(c));
}

/**
 * The pairs of a whole-record screen: each unordered pair of active columns once on the same
 * day, and at each lag 1…maxLag in both directions (either column may lead) — the coach's layout.
 */
function recordCandidates(columns: Column[], maxLag: number): Candidate[] {
  const out: Candidate[] = [];
  for (let i = 0; i < columns.length; i++) {
    for (let j = i + 1; j < columns.length; j++) {
      out.push({ a: columns[i], b: columns[j], lag: 0 });
      for (let lag = 1; lag <= maxLag; lag++) {
        out.push({ a: columns[i], b: columns[j], lag }, { a: columns[j], b: columns[i], lag });
      }
    }
  }
  return out;
}

/** How many pairs a whole-record screen of k columns tries (withheld ones included). */
export function recordPairCount(k: number, maxLag: number): number {
  return (k * (k - 1) / 2) * (1 + 2 * maxLag);
}

/** Tests `candidates` (Spearman) as one Benjamini–Yekutieli family. */
function runFamily(o: ScreenOptions, candidates: Candidate[]): Screen {
  const tested: Omit<ScreenHit, "q">[] = [];
  const withheld: ScreenWithheld[] = [];
  for (const { a, b, lag } of candidates) {
    const correlation = correlate({
      record: o.record,
      a,
      b,
      lag,
      range: o.range,
      method: "spearman",
      detrend: o.detrend,
    });
    if (correlation.withheld) withheld.push({ a, b, lag, withheld: correlation.withheld });
    else tested.push({ a, b, lag, correlation });
  }
  const q = benjaminiYekutieli(tested.map((t) => t.correlation.p));
  const withQ = tested.map((t, i) => ({ ...t, q: q[i] }));
  return { testsRun: tested.length, tested: withQ, discoveries: discoveriesOf(withQ), withheld };
}

/** Pairs with q < 0.10, strongest |r| first (a stable sort keeps visiting order on ties). */
function discoveriesOf(tested: ScreenHit[]): ScreenHit[] {
  return tested.filter((t) => t.q < Q_THRESHOLD)
    .sort((x, y) => Math.abs(y.correlation.r) - Math.abs(x.correlation.r));
}

/** A whole-record screen and the columns it read. */
export interface RecordScreen extends Screen {
  columns: Column[];
}

// One whole-record screen per record object and settings: an agent screening metric after
// metric asks for the same family each time (a saved entry makes a new record object).
const memo = new WeakMap<MemberRecord, Map<string, RecordScreen>>();

/**
 * The whole record: every pair of the screened columns (`screenColumns`, `keep` among them) at
 * lags 0…maxLag, one BY family.
 */
export function screenRecordPairs(o: ScreenOptions & { keep?: Column }): RecordScreen {
  const columns = screenColumns(o.record, o.range, o.keep);
  const key = [o.range.start, o.range.end, o.maxLag, o.detrend, ...columns.map((c) => c.key)]
    .join("|");
  const byRecord = memo.get(o.record) ?? new Map<string, RecordScreen>();
  memo.set(o.record, byRecord);
  const known = byRecord.get(key);
  if (known) return known;
  const screen = { ...runFamily(o, recordCandidates(columns, o.maxLag)), columns };
  byRecord.set(key, screen);
  return screen;
}

/**
 * One metric's family: every other active column as the leading side (its day d against
 * `target` on day d + lag) for lag = 0 … `maxLag`, in display order, one BY family of its own.
 */
export function screenCorrelations(o: ScreenOptions & { target: Column }): Screen {
  const candidates: Candidate[] = [];
  for (const other of o.record.columns) {
    if (other.archived) continue;
    if (other.key === o.target.key) continue;
    for (let lag = 0; lag <= o.maxLag; lag++) candidates.push({ a: other, b: o.target, lag });
  }
  return runFamily(o, candidates);
}

/**
 * The target's tests as they stand inside a whole-record screen: pairs where `target` follows
 * (or either side on the same day, turned so `target` is `b`), each keeping its record-wide q;
 * `testsRun` stays the record's family size. Ordered as `screenCorrelations` visits them.
 */
export function targetView(screen: RecordScreen, target: Column): Screen {
  const order = new Map(screen.columns.map((c, i) => [c.key, i]));
  const turn = <T extends { a: Column; b: Column; lag: number }>(t: T): T | null =>
    t.b.key === target.key
      ? t
      : t.lag === 0 && t.a.key === target.key
      ? { ...t, a: t.b, b: t.a }
      : null;
  const rank = (t: { a: Column; lag: number }) => order.get(t.a.key)! * 8 + t.lag; // lag ≤ 3
  const pick = <T extends { a: Column; b: Column; lag: number }>(xs: T[]) =>
    xs.map(turn).filter((t): t is T => t !== null).sort((x, y) => rank(x) - rank(y));
  const tested = pick(screen.tested);
  return {
    testsRun: screen.testsRun,
    tested,
    discoveries: discoveriesOf(tested),
    withheld: pick(screen.withheld),
  };
}

/** The key that names a tested pair in either orientation (same-day pairs are unordered). */
export function pairKey(a: string, b: string, lag: number): string {
  if (lag < 0) return pairKey(b, a, -lag);
  return lag === 0 ? `${[a, b].sort().join("|")}|0` : `${a}|${b}|${lag}`;
}

/** The tested pair `a` → `b` at `lag` (negative: b leads) in a screen, if it ran. */
export function findPair(screen: Screen, a: string, b: string, lag: number): ScreenHit | null {
  const key = pairKey(a, b, lag);
  return screen.tested.find((t) => pairKey(t.a.key, t.b.key, t.lag) === key) ?? null;
}

/** A screen as find_correlations runs it: the arguments that name its family. */
export interface ScreenRequest extends ScreenOptions {
  /** The metric screened, or null for a whole-record call. */
  target: Column | null;
  /** Which tests the q-values count: the whole record's (default) or the target's own. */
  family: "record" | "metric";
}

/** What a screen request produced: the tests shown, the family they count in, and its columns. */
export interface ScreenOutcome {
  /** The tests shown: the whole family, or the target's pairs within it. */
  shown: Screen;
  /** The family the q-values count. */
  family: Screen;
  /** Columns a whole-record screen at these settings reads. */
  columns: number;
}

/**
 * Runs the screen a request names: the whole record, the target's pairs inside it (record-wide
 * q), or the target's own family.
 */
export function runScreen(o: ScreenRequest): ScreenOutcome {
  const { target } = o;
  if (target !== null && o.family === "metric") {
    const own = screenCorrelations({ ...o, target });
    return { shown: own, family: own, columns: screenColumns(o.record, o.range, target).length };
  }
  const whole = screenRecordPairs({ ...o, keep: target ?? undefined });
  const shown = target === null ? whole : targetView(whole, target);
  return { shown, family: whole, columns: whole.columns.length };
}
