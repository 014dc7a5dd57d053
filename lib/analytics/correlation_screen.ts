/**
 * Correlation screen (domain-anchors §3.3 "Correlation screen"): one metric against every other
 * active column at lags 0…max_lag, each pair adjusted for weekday and trend by default and tested
 * on its effective sample size, Benjamini–Hochberg over every test that ran (statistics.md §3, §4).
 */

import type { Column, MemberRecord } from "../record/types.ts";
import { benjaminiHochbergQ, Q_REPORT } from "./adjust.ts";
import type { DayRange } from "./common.ts";
import { correlate, type Correlation, type Detrend, type WithheldReason } from "./correlation.ts";

/** False-discovery threshold for reporting a pair. */
export const Q_THRESHOLD = Q_REPORT;

/** One tested (other metric, lag) pair. */
export interface ScreenHit {
  other: Column;
  lag: number;
  correlation: Correlation;
  q: number;
}

/** One pair that could not be tested. */
export interface ScreenWithheld {
  other: Column;
  lag: number;
  withheld: WithheldReason;
}

/** The outcome of a screen. */
export interface Screen {
  testsRun: number;
  /** Every pair that was tested (in visiting order), with its q. */
  tested: ScreenHit[];
  /** Pairs with q < 0.10, strongest |r| first (all of them; the tool cuts to `top`). */
  discoveries: ScreenHit[];
  withheld: ScreenWithheld[];
}

/** What a correlation screen reads. */
export interface ScreenCorrelationsOptions {
  record: MemberRecord;
  target: Column;
  range: DayRange;
  /** Lags 0 … maxLag (the other column leads). */
  maxLag: number;
  /** What each pair has removed first; the tools default to `weekday_trend`. */
  detrend: Detrend;
}

/**
 * Tests every non-archived column other than `target` as the leading side (its day d against
 * `target` on day d + lag) for lag = 0 … `maxLag`, Spearman. Columns are visited in display
 * order, so ties in |r| keep that order.
 */
export function screenCorrelations(o: ScreenCorrelationsOptions): Screen {
  const { record, target } = o;
  const tested: { other: Column; lag: number; correlation: Correlation }[] = [];
  const withheld: ScreenWithheld[] = [];
  for (const other of record.columns) {
    if (other.key === target.key || other.archived) continue;
    for (let lag = 0; lag <= o.maxLag; lag++) {
      const correlation = correlate({
        record,
        a: other,
        b: target,
        lag,
        range: o.range,
        method: "spearman",
        detrend: o.detrend,
      });
      if (correlation.withheld) withheld.push({ other, lag, withheld: correlation.withheld });
      else tested.push({ other, lag, correlation });
    }
  }
  const q = benjaminiHochbergQ(tested.map((t) => t.correlation.p));
  const withQ = tested.map((t, i) => ({ ...t, q: q[i] }));
  const discoveries = withQ
    .filter((t) => t.q < Q_THRESHOLD)
    .sort((x, y) => Math.abs(y.correlation.r) - Math.abs(x.correlation.r));
  return { testsRun: tested.length, tested: withQ, discoveries, withheld };
}
