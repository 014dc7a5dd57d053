/**
 * Habit strength (`get_habit_strength`), Loop Habit Tracker's exponential smoothing
 * (domain-anchors §1.10, §3.3): s_d = s_{d−1}·m + v_d·(1 − m) with m = 0.5^(√f / 13), so a
 * perfect record climbs to ≈80 % in 30 days and a lapse decays slowly instead of resetting to 0.
 */

import type { DayNumber } from "../foundation/dates.ts";
import type { Column, DayValue } from "../record/types.ts";
import { columnExtent } from "./columns.ts";
import { dayState } from "./common.ts";

/** The strength series of one column. */
export interface HabitStrength {
  /** First entry (score 0 the day before); `null` for an empty column. */
  first: DayNumber | null;
  /** Last day included: today if it qualifies, else yesterday ("today only helps"). */
  asOf: DayNumber;
  /** scores[i] = strength at the end of day first + i. */
  scores: Float64Array;
  times: number;
  perDays: number;
  halfLifeDays: number;
  /**
   * How a day without an entry counts: as a missed day (v = 0, the Loop formula's rule — so a
   * logging gap lowers the score exactly like a lapse), or left out for a `missing_policy:
   * neutral` column (spot measurements).
   */
  missingPolicy: "counted_as_missed" | "left_out";
  /** Days without an entry that were counted as missed, first entry … asOf. */
  missingCounted: number;
  /** …of which in the 30 days ending `asOf`. */
  missingCountedLast30: number;
}

/** The goal's frequency: `times` per `per_days` (daily goals and goal-less columns: 1 per 1). */
export function frequencyOf(column: Column): { times: number; perDays: number } {
  return column.goal?.per === "week"
    ? { times: column.goal.times ?? 1, perDays: 7 }
    : { times: 1, perDays: 1 };
}

/**
 * Computes the strength of `column` for every day from its first entry to `asOf` (`today`, or
 * the day before when today does not qualify yet). The daily input v_d is min(1, qualifying days
 * in the trailing `per_days` window / times), or min(1, value / target) for a daily `at_least`
 * goal (partial credit); skip days, and missing days of a `missing_policy: neutral` column, leave
 * the score unchanged; other missing days count 0.
 */
export function habitStrength(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  today: DayNumber,
): HabitStrength {
  const { times, perDays } = frequencyOf(column);
  const f = times / perDays;
  const m = 0.5 ** (Math.sqrt(f) / 13);
  const halfLifeDays = 13 / Math.sqrt(f);
  const asOf = dayState(column, series.get(today)) === "qualifies" ? today : today - 1;
  const first = columnExtent(series).first;
  const neutralMissing = column.missing_policy === "neutral";
  const missing = {
    missingPolicy: neutralMissing ? "left_out" as const : "counted_as_missed" as const,
    missingCounted: 0,
    missingCountedLast30: 0,
  };
  if (first === null || first > asOf) {
    const scores = new Float64Array(0);
    return { first: null, asOf, scores, times, perDays, halfLifeDays, ...missing };
  }

  const goal = column.goal;
  const partialCredit = goal?.op === "at_least" && goal.per === "day" && (goal.value ?? 0) > 0;
  const scores = new Float64Array(asOf - first + 1);
  // A ring of the last `perDays` qualification flags gives the trailing-window count in O(1).
  const window = new Uint8Array(perDays);
  let inWindow = 0;
  let s = 0;
  for (let day = first; day <= asOf; day++) {
    const raw = series.get(day);
    const state = dayState(column, raw);
    const slot = (day - first) % perDays;
    inWindow -= window[slot];
    window[slot] = state === "qualifies" ? 1 : 0;
    inWindow += window[slot];

    if (state === "skip" || (state === "missing" && neutralMissing)) {
      scores[day - first] = s;
      continue;
    }
    if (state === "missing") {
      missing.missingCounted++;
      if (day > asOf - 30) missing.missingCountedLast30++;
    }
    let v: number;
    if (partialCredit) {
      v = typeof raw === "number" ? Math.min(1, raw / goal!.value!) : 0;
    } else {
      v = Math.min(1, inWindow / times);
    }
    s = s * m + v * (1 - m);
    scores[day - first] = s;
  }
  return { first, asOf, scores, times, perDays, halfLifeDays, ...missing };
}

/** The score at the end of `day` (0 before the first entry; `null` after `asOf`). */
export function scoreAt(strength: HabitStrength, day: DayNumber): number | null {
  if (strength.first === null || day > strength.asOf) return null;
  if (day < strength.first) return 0;
  return strength.scores[day - strength.first];
}
