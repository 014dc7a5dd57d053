/**
 * Our own JSON export (`exportRecord` format json) read back as an import (#25): every column
 * definition as it was (type, unit, scale, goal, direction, aggregation, archived), then one row
 * per entry. Each definition passes the same checks `createColumn` applies; fields the file holds
 * that an import does not restore (the profile, anything newer) are ignored, never an error.
 */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import {
  MAX_IMPORT_ROWS,
  type ParsedImport,
  type ParsedRow,
  type RejectedRow,
  type SourceColumn,
} from "./import_source.ts";
import { checkColumn, ColumnCreate, DEFAULT_AGG, MAX_COLUMNS } from "./store.ts";
import type { Column, DayValue } from "./types.ts";

/**
 * A column as the export writes it: `createColumn`'s fields plus `archived`. Not strict, so a
 * field a later export adds is dropped rather than refused.
 */
const ExportedColumn = z.object({ ...ColumnCreate.shape, archived: z.boolean().default(false) });

const ExportedValue = z.union([z.number(), z.boolean(), z.literal("skip")]);

/** The parts of the JSON export an import reads; entries are checked one by one (by line). */
const ExportFile = z.object({
  format: z.literal("json").optional(),
  columns: z.array(z.unknown()).max(MAX_COLUMNS),
  entries: z.array(z.unknown()).max(MAX_IMPORT_ROWS),
});

const ExportedEntry = z.object({
  date: z.string().max(40),
  values: z.record(z.string().max(40), ExportedValue),
  note: z.string().max(2000).nullable().optional(),
});

/** The first problem zod found, in one line for the member. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue.path.length ? ` at ${issue.path.join(".")}` : "";
  return `${issue.message}${where}`.slice(0, 200);
}

function readFile(text: string): z.infer<typeof ExportFile> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError("invalid_request", "The file is not JSON: choose the .json file exported.");
  }
  const file = ExportFile.safeParse(json);
  if (!file.success) {
    throw new AppError(
      "invalid_request",
      `The JSON is not our export (columns and entries): ${firstIssue(file.error)}.`,
    );
  }
  return file.data;
}

/** A column definition of the file, checked as `createColumn` would; a bad one refuses the file. */
function sourceColumn(raw: unknown, index: number): SourceColumn {
  const parsed = ExportedColumn.safeParse(raw);
  if (!parsed.success) {
    throw new AppError(
      "invalid_request",
      `Column ${index + 1} of the file is not a column definition: ${firstIssue(parsed.error)}.`,
    );
  }
  const c = parsed.data;
  const isScale = c.type === "scale";
  const column: Column = {
    ...c,
    scale_min: isScale ? c.scale_min ?? 1 : null,
    scale_max: isScale ? c.scale_max ?? 5 : null,
    daily_agg: c.daily_agg ?? DEFAULT_AGG[c.type],
  };
  try {
    checkColumn(column);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    throw new AppError("invalid_request", `Column "${c.key}" of the file: ${err.message}`);
  }
  return { ...column, daily_agg: c.daily_agg, source: c.key };
}

/** One entry as a row: values by the position of their column in the file. */
function entryRow(raw: unknown, line: number, positions: Map<string, number>): ParsedRow {
  const date = typeof (raw as { date?: unknown })?.date === "string"
    ? (raw as { date: string }).date
    : "";
  const row: ParsedRow = { line, date, values: new Map() };
  const entry = ExportedEntry.safeParse(raw);
  if (!entry.success) throw new AppError("invalid_request", firstIssue(entry.error));
  for (const [key, value] of Object.entries(entry.data.values)) {
    const position = positions.get(key);
    if (position === undefined) {
      throw new AppError("invalid_request", `"${key}" is not one of the file's columns.`);
    }
    row.values.set(position, value as DayValue);
  }
  if (entry.data.note) row.note = entry.data.note;
  return row;
}

/**
 * Parses our JSON export. A column definition that does not pass is the whole file refused (its
 * values could not be read); an entry that does not is a rejected row numbered by its place in
 * `entries` (1 = the first), like a CSV line.
 */
export function parseOwnJson(text: string): ParsedImport {
  const file = readFile(text);
  const columns = file.columns.map(sourceColumn);
  const positions = new Map<string, number>();
  columns.forEach((c, i) => {
    if (positions.has(c.key)) {
      throw new AppError("invalid_request", `Column "${c.key}" appears twice in the file.`);
    }
    positions.set(c.key, i);
  });
  const rows: ParsedRow[] = [];
  const errors: RejectedRow[] = [];
  file.entries.forEach((raw, i) => {
    try {
      rows.push(entryRow(raw, i + 1, positions));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const date = String((raw as { date?: unknown })?.date ?? "").slice(0, 40);
      errors.push({ line: i + 1, date, reason: err.message });
    }
  });
  return {
    format: "routine-tracker-json",
    sourceRows: file.entries.length,
    columns,
    rows,
    errors,
    notices: [
      "Columns are matched by key; a column you do not have is created as the file defines it.",
      "Rows are numbered by their place in the file's entries (1 = the first).",
    ],
  };
}
