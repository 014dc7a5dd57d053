/**
 * What the Pauses page (`/app/pauses`, issue #25) reads and shows: the add form (first and last
 * day, and the columns ticked — none ticked pauses every column) into `createPause` input, with a
 * message beside each field that does not fit, and each pause in words.
 */

import { parseDay } from "../foundation/dates.ts";
import type { PauseViewOf } from "../record/pauses.ts";
import type { Column } from "../record/types.ts";

/** The checkbox of column `key` on the add form. */
export function pauseColumnField(key: string): string {
  return `col.${key}`;
}

/** The outcome of reading the add form. */
export type PauseFormResult =
  | { ok: true; input: { start: string; end: string; columns: string[] | null } }
  | { ok: false; errors: Record<string, string> };

/** Reads the add form; dates must be real and in order (the store checks the rest). */
export function readPauseForm(form: Record<string, string>, columns: Column[]): PauseFormResult {
  const start = (form.start ?? "").trim(), end = (form.end ?? "").trim();
  const errors: Record<string, string> = {};
  const startDay = parseDay(start), endDay = parseDay(end);
  if (startDay === null) errors.start = "Enter the first day away, e.g. 2026-08-12.";
  if (endDay === null) errors.end = "Enter the last day away, e.g. 2026-08-19.";
  if (startDay !== null && endDay !== null && endDay < startDay) {
    errors.end = "The last day is before the first: enter a later day.";
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const chosen = columns.filter((c) => form[pauseColumnField(c.key)] !== undefined).map((c) =>
    c.key
  );
  return { ok: true, input: { start, end, columns: chosen.length ? chosen : null } };
}

/** A pause's columns in words: "every column" or their labels. */
export function pauseColumnsWords(pause: PauseViewOf, columns: Column[]): string {
  if (pause.columns === null) return "every column";
  const labels = new Map(columns.map((c) => [c.key, c.label]));
  return pause.columns.map((k) => labels.get(k) ?? k).join(", ");
}
