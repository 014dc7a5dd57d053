/**
 * Anomalies (domain-anchors §3.3 "Anomalies"): each day against the member's own previous 28
 * days, by the Iglewicz–Hoaglin modified z-score 0.6745 · (x − median) / MAD.
 */

import type { DayNumber } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { mad, median } from "./stats.ts";
import { clockDifference, clockLevel, isClock, unwrapClock } from "./circular.ts";

/** Days before each checked day that form its baseline. */
export const BASELINE_DAYS = 28;
/** Values the baseline needs. */
export const MIN_BASELINE_VALUES = 14;
/** Iglewicz–Hoaglin's constant: the 0.75 normal quantile, so z is in SD units for normal data. */
export const MAD_SCALE = 0.6745;
/** Default |z| at which a day is flagged (Iglewicz–Hoaglin). */
export const DEFAULT_THRESHOLD = 3.5;

/** One flagged day (unrounded). */
export interface Anomaly {
  day: DayNumber;
  column: Column;
  value: number;
  baselineMedian: number;
  z: number;
}

/** What a scan found and how many days it could not judge. */
export interface AnomalyScan {
  anomalies: Anomaly[];
  checkedDays: number;
  skippedInsufficientBaseline: number;
  /** Days whose baseline had MAD 0 (over half the values equal): never flagged. */
  skippedZeroMad: number;
}

/** Whether anomalies are defined for a column (booleans excluded). */
export function canHaveAnomalies(column: Column): boolean {
  return column.type !== "boolean";
}

/** What an anomaly scan reads. */
export interface ScanAnomaliesOptions {
  record: MemberRecord;
  columns: Column[];
  range: DayRange;
  threshold: number;
}

/**
 * Scans every logged day of `range` in each of `columns`: baseline = the values of the 28 days
 * before it (≥ 14 needed), flagged when |0.6745 · (x − median) / MAD| ≥ `threshold`; MAD 0 is
 * never flagged.
 */
export function scanAnomalies(
  { record, columns, range, threshold }: ScanAnomaliesOptions,
): AnomalyScan {
  const scan: AnomalyScan = {
    anomalies: [],
    checkedDays: 0,
    skippedInsufficientBaseline: 0,
    skippedZeroMad: 0,
  };
  const baseline = new Float64Array(BASELINE_DAYS);
  for (const column of columns) {
    const values = record.values.get(column.key);
    if (!values) continue;
    const at = (d: DayNumber): number | null => {
      const v = values.get(d);
      return typeof v === "number" ? v : null;
    };
    for (let d = range.start; d <= range.end; d++) {
      const x = at(d);
      if (x === null) continue;
      let n = 0;
      for (let b = d - BASELINE_DAYS; b < d; b++) {
        const v = at(b);
        if (v !== null) baseline[n++] = v;
      }
      if (n < MIN_BASELINE_VALUES) {
        scan.skippedInsufficientBaseline++;
        continue;
      }
      scan.checkedDays++;
      // times of day: the window unwrapped around its circular mean and the day's time taken
      // the shorter way round from the window's median (circular.ts)
      const clock = isClock(column);
      const window = clock ? unwrapClock(baseline.subarray(0, n)) : baseline.subarray(0, n);
      const spread = mad(window);
      if (spread === 0) {
        scan.skippedZeroMad++;
        continue;
      }
      const center = median(window);
      const offset = clock ? clockDifference(x, center) : x - center;
      const z = (MAD_SCALE * offset) / spread;
      if (Math.abs(z) >= threshold) {
        const baselineMedian = clockLevel(column, center);
        scan.anomalies.push({ day: d, column, value: x, baselineMedian, z });
      }
    }
  }
  // newest first; on the same day the most extreme first
  scan.anomalies.sort((a, b) => b.day - a.day || Math.abs(b.z) - Math.abs(a.z));
  return scan;
}
