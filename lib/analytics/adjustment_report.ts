/**
 * The `adjustments` block every inferential tool answer carries (statistics.md §4 "Say what
 * ran"): the detrending asked for and what ran, the effective-sample-size correction, the
 * multiple-testing procedure and the number of tests, and one plain sentence.
 */

import { adjustmentText, type AppliedAdjustment } from "./adjust.ts";
import type { Detrend } from "./correlation.ts";

/** Serialisable adjustments block (schemas.ts `Adjustments`). */
export interface AdjustmentsReport {
  detrend: Detrend;
  detrend_applied: AppliedAdjustment[];
  effective_sample_size: "bartlett_multilag";
  multiple_testing: "benjamini_yekutieli" | "benjamini_hochberg" | "none";
  tests_run: number;
  confidence_from: "q" | "p";
  summary: string;
}

/** What went into one answer. */
export interface AdjustmentsInput {
  detrend: Detrend;
  /** The adjustment of each test that ran (duplicates are collapsed, order kept). */
  applied: AppliedAdjustment[];
  testsRun: number;
  /** A false-discovery correction over the tests, or a single test with q = p. */
  multipleTesting: boolean;
  /** The correction, when there is one (default Benjamini–Hochberg). */
  procedure?: "benjamini_yekutieli" | "benjamini_hochberg";
}

const PROCEDURE_NAME = {
  benjamini_yekutieli: "Benjamini–Yekutieli",
  benjamini_hochberg: "Benjamini–Hochberg",
} as const;

/** Builds the block; `summary` names each distinct adjustment in words. */
export function adjustmentsReport(o: AdjustmentsInput): AdjustmentsReport {
  const applied = [...new Set(o.applied)];
  const what = applied.length === 0
    ? "No test ran."
    : `${upperFirst(applied.map(adjustmentText).join("; "))}.`;
  const procedure = o.procedure ?? "benjamini_hochberg";
  const testing = o.multipleTesting
    ? ` ${PROCEDURE_NAME[procedure]} q over ${o.testsRun} tests; confidence words from q.`
    : " One test, so q = p; confidence words from p.";
  return {
    detrend: o.detrend,
    detrend_applied: applied,
    effective_sample_size: "bartlett_multilag",
    multiple_testing: o.multipleTesting ? procedure : "none",
    tests_run: o.testsRun,
    confidence_from: o.multipleTesting ? "q" : "p",
    summary: `${what} p-values and intervals use the effective number of days given the ` +
      `series' autocorrelation (n_eff), not one per day.${testing}`,
  };
}

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
