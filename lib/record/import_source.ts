/**
 * What every import format (our own CSV, Loop Habit Tracker, Daylio) is parsed into before it is
 * mapped onto the member's columns (lib/record/transfer.ts). Parsers are pure: text or bytes in,
 * a `ParsedImport` out, no KV. Limits live here so the page and the docs state the same numbers.
 */

import { parse } from "csv-parse/sync";
import { AppError } from "../foundation/errors.ts";
import type { Column, DayValue } from "./types.ts";

/** The import formats `importRecord` accepts: our CSV and JSON exports, Loop, Daylio. */
export const IMPORT_FORMATS = [
  "routine-tracker",
  "routine-tracker-json",
  "loop",
  "daylio",
] as const;
/** One of `IMPORT_FORMATS`. */
export type ImportFormat = typeof IMPORT_FORMATS[number];

/** Largest file an import accepts (CSV text or Loop's zip), in bytes: fits a 1 MiB JSON body. */
export const MAX_IMPORT_BYTES = 512 * 1024;

/** Most data rows one file may hold (about eleven years of daily rows). */
export const MAX_IMPORT_ROWS = 4000;

/**
 * A column the file brings: its name in the file, and the column it would become (key, label,
 * type, unit, goal…) if none of the member's fits. A source column is identified by its POSITION
 * in `ParsedImport.columns`, never by its name: Loop allows two habits of one name (issue #19).
 */
export type SourceColumn =
  & Omit<Column, "archived" | "daily_agg">
  & Partial<
    Pick<Column, "archived" | "daily_agg">
  >
  & {
    /**
     * The name shown in the preview (a Loop habit, a Daylio activity, `mood`, or our column key);
     * a repeated name is made unique (`H`, `H (2)`) by `uniqueNames` so the member can tell them apart.
     */
    source: string;
    /** A header of our CSV that names an existing column by its key: that column, never another. */
    existingOnly?: boolean;
  };

/** One day of the file: values by source column position. */
export interface ParsedRow {
  /** 1-based line of the file (header = 1); the newest line when several rows share a day. */
  line: number;
  date: string;
  /** Index in `ParsedImport.columns` → value; a repeated header text cannot collide here. */
  values: Map<number, DayValue>;
  /** `undefined` keeps the stored note. */
  note?: string;
}

/** One rejected row: its line, its date cell and why. */
export interface RejectedRow {
  line: number;
  date: string;
  reason: string;
}

/** A Daylio mood label, how many rows carry it, and its place on the 1–5 scale (null: unmapped). */
export interface MoodLabel {
  label: string;
  count: number;
  value: number | null;
}

/** A parsed file, before it meets the member's record. */
export interface ParsedImport {
  format: ImportFormat;
  /** Data rows in the file (a Daylio day may take several). */
  sourceRows: number;
  columns: SourceColumn[];
  rows: ParsedRow[];
  errors: RejectedRow[];
  /** How the file was read, in plain words, for the preview. */
  notices: string[];
  moods?: MoodLabel[];
}

/** Parses CSV text into rows of cells, or throws `invalid_request` saying why. */
export function csvTable(text: string): string[][] {
  if (text.includes("\u0000")) {
    throw new AppError("invalid_request", "The file is not a CSV text file.");
  }
  let table: string[][];
  try {
    table = parse(text, { relax_column_count: true, skip_empty_lines: true, bom: true });
  } catch (err) {
    throw new AppError(
      "invalid_request",
      `The CSV does not parse: ${(err as Error).message.slice(0, 200)}`,
    );
  }
  if (table.length < 2) {
    throw new AppError("invalid_request", "The CSV needs a header row and at least one data row.");
  }
  if (table.length - 1 > MAX_IMPORT_ROWS) {
    throw new AppError(
      "invalid_request",
      `At most ${MAX_IMPORT_ROWS} rows per import; split the file.`,
    );
  }
  return table;
}

/** A column key made from a name: `Movies / TV` → `movies_tv` (DESIGN §8 key rule). */
export function keyFromName(name: string): string {
  const slug = name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  const key = /^[a-z]/.test(slug) ? slug : `c_${slug}`;
  return key.slice(0, 40).replace(/_+$/, "") || "column";
}

/** A label from a name: trimmed, single-spaced, at most 80 characters. */
export function labelFromName(name: string): string {
  return name.trim().replace(/\s+/g, " ").slice(0, 80) || "Column";
}

/**
 * Makes repeated names unique by position: the second `H` becomes `H (2)` (or `H (3)`… when the
 * file already has an `H (2)`). The first keeps its name, so a file without repeats is unchanged.
 */
export function uniqueNames(names: string[]): string[] {
  const used = new Set(names);
  const seen = new Set<string>();
  return names.map((name) => {
    if (!seen.has(name)) {
      seen.add(name);
      return name;
    }
    let n = 2;
    while (used.has(`${name} (${n})`)) n++;
    const unique = `${name} (${n})`;
    used.add(unique);
    seen.add(unique);
    return unique;
  });
}

/**
 * Refuses a header whose cells repeat (compared as given): a format whose columns are found by
 * name would read only one of them, and the other's values would be lost without a word.
 */
export function refuseRepeatedHeaders(header: string[]): void {
  const seen = new Set<string>();
  for (const h of header) {
    if (h !== "" && seen.has(h)) {
      throw new AppError(
        "invalid_request",
        `Header "${h.slice(0, 40)}" appears twice; keep one column of that name.`,
      );
    }
    seen.add(h);
  }
}

/** Runs `parse` on one row, collecting an `AppError` as a rejected row instead of throwing. */
export function collectRowError(
  errors: RejectedRow[],
  row: { line: number; date: string },
  parse: () => void,
): void {
  try {
    parse();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    errors.push({ line: row.line, date: row.date.slice(0, 40), reason: err.message });
  }
}
