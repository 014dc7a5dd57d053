/**
 * Correlation screen (domain-anchors §3.3 "Correlation screen"): one metric against every other
 * active column at lags 0…max_lag, Benjamini–Hochberg over every test that ran.
 */

import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { correlate, type Correlation, type WithheldReason } from "./correlation.ts";
import { benjaminiHochberg } from "./stats.ts";

/** False-discovery threshold for reporting a pair. */
export const Q_THRESHOLD = 0.10;

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
  /** Pairs with q < 0.10, strongest |r| first (all of them; the tool cuts to `top`). */
  discoveries: ScreenHit[];
  withheld: ScreenWithheld[];
}

/** What a correlation screen reads. */
export interface ScreenCorrelationsOptions {
  record: MemberRecord;
  target: Column;
  range: DayRange;
  maxLag: number;
}

/**
 * Tests every non-archived column other than `target` as the leading side (its day d against
 * `target` on day d + lag) for lag = 0 … `maxLag`, Spearman, no detrending. Columns are visited in
 * display order, so ties in |r| keep that order.
 */
export function screenCorrelations(
  { record, target, range, maxLag }: ScreenCorrelationsOptions,
): Screen {
  const tested: { other: Column; lag: number; correlation: Correlation }[] = [];
  const withheld: ScreenWithheld[] = [];
  for (const other of record.columns) {
    if (other.key === target.key || other.archived) continue;
    for (let lag = 0; lag <= maxLag; lag++) {
      const correlation = correlate({
        record,
        a: other,
        b: target,
        lag,
        range,
        method: "spearman",
        detrend: "none",
      });
      if (correlation.withheld) withheld.push({ other, lag, withheld: correlation.withheld });
      else tested.push({ other, lag, correlation });
    }
  }
  const q = benjaminiHochberg(tested.map((t) => t.correlation.p));
  const discoveries = tested
    .map((t, i) => ({ ...t, q: q[i] }))
    .filter((t) => t.q < Q_THRESHOLD)
    .sort((x, y) => Math.abs(y.correlation.r) - Math.abs(x.correlation.r));
  return { testsRun: tested.length, discoveries, withheld };
}
