/** Wording and number-reporting helpers shared by the analytics modules of this folder. */

import type { Column } from "../record/types.ts";

/**
 * How a column reads inside a sentence: its label without a trailing parenthetical, lower-cased
 * unless it starts with an acronym ("Resting HR" → "resting HR", "HRV" stays "HRV").
 */
export function phraseOf(column: Column): string {
  // a trailing note such as "(dated by wake day)" belongs in list_columns, not in a sentence
  const label = (column.label || column.key.replaceAll("_", " ")).replace(/\s*\([^)]*\)\s*$/, "");
  const first = label.charAt(0), second = label.charAt(1);
  if (second && second === second.toUpperCase() && second !== second.toLowerCase()) return label;
  return first.toLowerCase() + label.slice(1);
}

/** "more" for amounts (steps, minutes, hours), "higher" for levels (mood, heart rate). */
export function moreOf(column: Column): string {
  const amount = column.daily_agg === "sum" || column.type === "duration_min" ||
    column.unit === "h" || column.unit === "min";
  return amount ? "more" : "higher";
}

/** `x` to `digits` significant digits (p-values span many magnitudes); `null` if not finite. */
export function roundSig(x: number, digits = 3): number | null {
  if (!Number.isFinite(x)) return null;
  if (x === 0) return 0;
  return Number(x.toPrecision(digits));
}

/** `x` to `dp` decimal places; `null` if not finite (JSON cannot carry NaN or Infinity). */
export function roundOrNull(x: number, dp = 2): number | null {
  if (!Number.isFinite(x)) return null;
  const f = 10 ** dp;
  // + 0 turns −0 into 0 so results never print "-0"
  return Math.round(x * f) / f + 0;
}

/** "1 day" / "3 days". */
export function daysWord(n: number): string {
  return n === 1 ? "1 day" : `${n} days`;
}
