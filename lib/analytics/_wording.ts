/**
 * The one wording module (issue #20 item 13): how a column is named inside a sentence, plurals,
 * and how a level of a column reads (its unit, its scale, a clock time). The analytics and tools
 * of lib/ and the coach's sentences (lib/coach) all word columns through it, so a member reads
 * their own labels — never a column key — and the grammar holds for any label, singular or plural
 * ("Steps", "Mood"): sentences never hang a singular verb on a label ("Your steps is …"), they
 * put the label where no verb has to agree with it ("Trend in your steps: …").
 */

import type { Column } from "../record/types.ts";
import { clockText, isClock } from "./circular.ts";

/**
 * How a column reads inside a sentence: its label without a trailing parenthetical, lower-cased
 * unless it starts with an acronym ("Resting HR" → "resting HR", "HRV" stays "HRV"). The key
 * stands in (underscores as spaces) only for a column with no label at all.
 */
export function phraseOf(column: Column): string {
  // a trailing note such as "(dated by wake day)" belongs in list_columns, not in a sentence
  const label = (column.label.trim() || column.key.replaceAll("_", " "))
    .replace(/\s*\([^)]*\)\s*$/, "");
  const first = label.charAt(0), second = label.charAt(1);
  if (second && second === second.toUpperCase() && second !== second.toLowerCase()) return label;
  return first.toLowerCase() + label.slice(1);
}

/** `phraseOf` with a capital first letter, for the start of a sentence ("Glasses of water"). */
export function capitalPhraseOf(column: Column): string {
  return capitalise(phraseOf(column));
}

/** `text` with its first letter in upper case. */
export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "more" for amounts (steps, minutes, hours), "higher" for levels (mood, heart rate). */
export function moreOf(column: Column): string {
  const amount = column.daily_agg === "sum" || column.type === "duration_min" ||
    column.unit === "h" || column.unit === "min";
  return amount ? "more" : "higher";
}

/**
 * `n` and the noun, singular for exactly 1: plural(1, "day") → "1 day", plural(3, "day") →
 * "3 days", plural(2, "entry", "entries") → "2 entries".
 */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

/** "1 day" / "3 days". */
export function daysWord(n: number): string {
  return plural(n, "day");
}

/**
 * A number as a sentence shows it: three significant digits with thousands separators
 * (statistics.md §6: more digits are noise); "n/a" when there is none.
 */
export function shownNumber(x: number | null): string {
  return x === null || !Number.isFinite(x)
    ? "n/a"
    : Number(x.toPrecision(3)).toLocaleString("en-US");
}

/**
 * A level of `column` as a sentence quotes it: a time of day as "23:45", a scale value with its
 * scale ("4 of 5", "3.4 on a 1–5 scale" when the scale does not start at 1), else the number and
 * its unit ("7.5 h").
 */
export function valueText(column: Column, x: number | null): string {
  if (x === null || !Number.isFinite(x)) return "n/a";
  if (isClock(column)) return clockText(x);
  const shown = shownNumber(x);
  if (column.type === "scale" && column.scale_max !== null) {
    return column.scale_min === 1 || column.scale_min === null
      ? `${shown} of ${column.scale_max}`
      : `${shown} on a ${column.scale_min}–${column.scale_max} scale`;
  }
  return column.unit ? `${shown} ${column.unit}` : shown;
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
