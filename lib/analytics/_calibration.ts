/**
 * Seeded null-calibration and power runs of the trend and correlation tests (issue #20 item 2),
 * shared by lib/analytics/calibration_test.ts and scripts/calibrate_nulls.ts. Not used at run time.
 * Every member comes from `realLogMember` (AR(1) φ 0.5, 20 % missing days, 3 % missing values,
 * own weekday rhythm), and every figure goes through `computeTrend` / `correlate`, the functions
 * `get_trend` and `get_correlation` call.
 */

import { computeTrend } from "./trend.ts";
import { correlate } from "./correlation.ts";
import { realLogMember, simRng } from "./_real_log_members.ts";
import { day, testColumn, testRecord } from "./_test_record.ts";
import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";

/** Rejection counts of one test at one window. */
export interface NullRate {
  test: string;
  window: number;
  members: number;
  /** Tests that stated a p-value (the rest were withheld below the minimum n_eff). */
  stated: number;
  below05: number;
  below001: number;
}

/** Options of `calibrationRun`. */
export interface CalibrationOptions {
  members: number;
  windows: number[];
  /** Members per power check at 90 days (0 = skip). */
  power: number;
}

/** What one run measured. */
export interface Calibration {
  nulls: NullRate[];
  power: Array<{ test: string; members: number; found: number }>;
}

const TODAY = "2026-03-18";

/** Null rates of the trend (default and plain) and the correlation (tool default, coach) tests. */
export function nullRates(members: number, window: number): NullRate[] {
  const rows = ["get_trend", "get_trend adjust none", "get_correlation", "coach pearson"]
    .map((test) => ({ test, window, members, stated: 0, below05: 0, below001: 0 }));
  const count = (row: NullRate, p: number) => {
    if (!Number.isFinite(p)) return;
    row.stated++;
    if (p < 0.05) row.below05++;
    if (p <= 0.001) row.below001++;
  };
  for (let m = 0; m < members; m++) {
    const seed = 1_000_003 * window + m;
    // a trend null has no drift; a correlation null keeps each column's own drift and rhythm
    const flat = realLogMember({ seed, days: 2 * window, columns: 3, trend: false }).record;
    const x = flat.columns[0];
    const current = { start: day(TODAY) - window + 1, end: day(TODAY) };
    count(rows[0], computeTrend({ record: flat, column: x, current }).p);
    count(rows[1], computeTrend({ record: flat, column: x, current, adjust: "none" }).p);
    const real = realLogMember({ seed: seed + 7, days: window, columns: 3 }).record;
    const [a, b] = real.columns;
    const o = { record: real, a, b, lag: 0, range: current, detrend: "weekday_trend" as const };
    count(rows[2], correlate({ ...o, method: "spearman" }).p);
    count(rows[3], correlate({ ...o, method: "pearson" }).p);
  }
  return rows;
}

/**
 * An AR(1) φ 0.5 column over `days` days, 20 % of days missing, rising by `drift` SDs over the
 * whole span (a real trend; `realLogMember` plants links and factors, not trends).
 */
function driftingRecord(seed: number, days: number, drift: number) {
  const r = simRng(seed);
  const last = day(TODAY);
  const values = new Map<DayNumber, DayValue>();
  let e = r.normal();
  for (let i = 0; i < days; i++) {
    e = 0.5 * e + Math.sqrt(0.75) * r.normal();
    if (r.uniform() < 0.2) continue;
    values.set(last - days + 1 + i, e + drift * (i / (days - 1) - 0.5));
  }
  return testRecord({ today: TODAY, columns: [testColumn("x")], values: { x: values } });
}

/** Power at 90 days: a 1 SD drift over 180 days, and a link r 0.4 (no lag). */
export function powerRates(members: number): Calibration["power"] {
  let trend = 0, link = 0;
  const current = { start: day(TODAY) - 89, end: day(TODAY) };
  for (let m = 0; m < members; m++) {
    const record = driftingRecord(5_000_000 + m, 180, 1);
    const t = computeTrend({ record, column: record.columns[0], current });
    if (t.p < 0.05) trend++;
    const real = realLogMember({ seed: 6_000_000 + m, days: 90, link: { r: 0.4, lag: 0 } }).record;
    const [a, b] = real.columns;
    const c = correlate({
      record: real,
      a,
      b,
      lag: 0,
      range: current,
      method: "spearman",
      detrend: "weekday_trend",
    });
    if (c.p < 0.05) link++;
  }
  return [
    { test: "get_trend, 1 SD drift over 180 days, days 90", members, found: trend },
    { test: "get_correlation, r 0.4, days 90", members, found: link },
  ];
}

/** Null rates at every window and the power checks. */
export function calibrationRun(o: CalibrationOptions): Calibration {
  return {
    nulls: o.windows.flatMap((w) => nullRates(o.members, w)),
    power: o.power > 0 ? powerRates(o.power) : [],
  };
}

const pct = (k: number, n: number) => n === 0 ? "–" : `${(100 * k / n).toFixed(2)} %`;

/** A plain-text table of a run. */
export function formatCalibration(c: Calibration): string {
  const lines = c.nulls.map((r) =>
    `${r.test.padEnd(22)} ${String(r.window).padStart(3)} d  stated ${r.stated}/${r.members}  ` +
    `p<0.05 ${pct(r.below05, r.stated)}  p<=0.001 ${pct(r.below001, r.stated)} ` +
    `(${r.below001})`
  );
  for (const p of c.power) lines.push(`${p.test}: ${p.found}/${p.members}`);
  return lines.join("\n");
}
