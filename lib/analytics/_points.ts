/** A column's logged values inside a range, as parallel typed arrays, plus change wording. */

import type { DayNumber } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import type { DayRange } from "./common.ts";
import { clockDifference, isClock, unwrapClock } from "./circular.ts";

/** Logged values in day order: `days[i]` carries `values[i]`. */
export interface Points {
  days: Int32Array;
  values: Float64Array;
}

/**
 * The values of `column` on the days of `range`, oldest first; skip and missing days are left
 * out (never imputed), booleans read as 1/0 and times of day are unwrapped around their circular
 * mean (report levels through `clockLevel`).
 */
export function pointsIn(record: MemberRecord, column: Column, range: DayRange): Points {
  const map = record.values.get(column.key);
  const span = Math.max(0, range.end - range.start + 1);
  const days = new Int32Array(span);
  const values = new Float64Array(span);
  let n = 0;
  if (map) {
    for (let d: DayNumber = range.start; d <= range.end; d++) {
      const v = map.get(d);
      if (v === undefined || v === "skip") continue;
      days[n] = d;
      values[n] = typeof v === "boolean" ? (v ? 1 : 0) : v;
      n++;
    }
  }
  const logged = values.subarray(0, n);
  // times of day unwrapped around their circular mean (circular.ts), so 00:30 sits beside 23:30
  return { days: days.subarray(0, n), values: isClock(column) ? unwrapClock(logged) : logged };
}

/** How a change reads for a column: better/worse when the column has a preferred direction. */
export type ChangeReading = "improving" | "worsening" | "increasing" | "decreasing";

/**
 * Reads a move from `before` to `after` through the column's `direction`: higher_better and
 * lower_better give improving/worsening; `target` with a numeric goal is improving when the mean
 * moved closer to the goal value; otherwise (neutral, or target without a value) it is just
 * increasing/decreasing.
 */
export function readChange(column: Column, before: number, after: number): ChangeReading {
  const up = after > before;
  switch (column.direction) {
    case "higher_better":
      return up ? "improving" : "worsening";
    case "lower_better":
      return up ? "worsening" : "improving";
    case "target": {
      const goal = column.goal?.value;
      if (goal !== null && goal !== undefined) {
        const away = (x: number) => Math.abs(isClock(column) ? clockDifference(x, goal) : x - goal);
        return away(after) < away(before) ? "improving" : "worsening";
      }
      return up ? "increasing" : "decreasing";
    }
    case "neutral":
      return up ? "increasing" : "decreasing";
  }
}
